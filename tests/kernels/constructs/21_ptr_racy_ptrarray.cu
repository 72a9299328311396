//xfail:NOT_ALL_VERIFIED
//--blockDim=64 --gridDim=1
// autosync: races=13-15
// 21_ptr_ok_ptrarray.cu without the first barrier: thread t + 1 stores into the buffer its
// parity picks while thread t reads that element through the other element of the array
// (line R2 against line R1).  Missed if `bufs[k]` is bound to one buffer.

__global__ void interleave(const float *in, float *out) {
  __shared__ float even[64];
  __shared__ float odd[64];
  float *bufs[2] = {even, odd};
  int t = threadIdx.x;
  bufs[t % 2][t] = in[t];  // R1
  float *src = bufs[(t + 1) % 2];
  out[t] = src[(t + 1) % 64];  // R2
  __syncthreads();
  bufs[1] = even;
  bufs[1][t] = 0.0f;
}
