//pass
//--blockDim=64 --gridDim=4
// autosync: nvcc=refuses
// 'tally' has no memory space: nvcc calls it a host variable; GPUVerify reads it as global
// memory.  Only one thread of the grid writes it.
int tally;

__global__ void count(int *flags) {
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    tally = 5;
  }
  flags[blockIdx.x * blockDim.x + threadIdx.x] = 0;
}
