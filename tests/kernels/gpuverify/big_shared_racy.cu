//xfail:NOT_ALL_VERIFIED
//--blockDim=256 --gridDim=1
// autosync: nvcc=refuses
// The same stages without the barrier between them.
__global__ void stage(int *out) {
  __shared__ int buf[16384];
  for (int k = threadIdx.x; k < 16384; k += 256) {
    buf[k] = k;
  }
  out[threadIdx.x] = buf[16383 - threadIdx.x];
}
