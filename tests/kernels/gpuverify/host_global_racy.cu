//xfail:NOT_ALL_VERIFIED
//--blockDim=64 --gridDim=4
// autosync: nvcc=refuses
// Every thread stores its own index into the one global cell.
int tally;

__global__ void count(int *flags) {
  tally = threadIdx.x;
  flags[blockIdx.x * blockDim.x + threadIdx.x] = 0;
}
