//xfail:NOT_ALL_VERIFIED
//--blockDim=128 --gridDim=1
// autosync: races=9-9
// 21_ptr_ok_ptrptr.cu advancing the cursor by 64 only: the second half-step writes
// s[64 + t] (line R1), which thread t + 64 wrote in the first call (line R1).  Missed if
// the cursor's update through the pointer to it is lost.

__device__ void put(float **cursor, int t, float v) {
  (*cursor)[t] = v;  // R1
  *cursor += 64;
}

__global__ void fill(const float *in, float *out) {
  __shared__ float s[256];
  int t = threadIdx.x;
  float *cur = s;
  put(&cur, t, in[t]);
  put(&cur, t, 2.0f * in[t]);
  __syncthreads();
  out[t] = s[255 - t] + s[t];
}
