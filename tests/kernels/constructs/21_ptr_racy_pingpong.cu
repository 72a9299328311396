//xfail:NOT_ALL_VERIFIED
//--blockDim=128 --gridDim=1
// autosync: races=21-21
// 21_ptr_ok_pingpong.cu without the barrier between the steps: after the swap, a thread
// reads in[t - 1] (line R1) that its neighbour may still be writing as out[t] of the
// step before.  Missed if the accesses through the swapped pointers keep the first binding.

__global__ void smooth_steps(const float *src, float *dst) {
  __shared__ float a[130];
  __shared__ float b[130];
  int t = threadIdx.x + 1;
  a[t] = src[threadIdx.x];
  b[t] = 0.0f;
  if (threadIdx.x == 0) {
    a[0] = 0.0f; a[129] = 0.0f; b[0] = 0.0f; b[129] = 0.0f;
  }
  __syncthreads();
  float *in = a;
  float *out = b;
  for (int s = 0; s < 4; ++s) {
    out[t] = 0.25f * in[t - 1] + 0.5f * in[t] + 0.25f * in[t + 1];  // R1
    float *tmp = in;
    in = out;
    out = tmp;
  }
  dst[threadIdx.x] = in[t];
}
