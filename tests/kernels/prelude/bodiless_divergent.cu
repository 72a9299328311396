//xfail:NOT_ALL_VERIFIED
//--blockDim=64 --gridDim=1
// autosync: races=11-15
// The value may differ between threads: a barrier under it is reached by some threads
// of the block and not others (barrier divergence).

__device__ bool pick(void);

__global__ void gate(int *out) {
  __shared__ int tile[64];
  tile[threadIdx.x] = out[threadIdx.x];
  if (pick()) {
    __syncthreads();
  }
  out[threadIdx.x] = tile[63 - threadIdx.x];
}
