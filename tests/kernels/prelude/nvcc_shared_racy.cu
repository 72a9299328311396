//xfail:NOT_ALL_VERIFIED
//--blockDim=256 --gridDim=4
// autosync: races=10-11
// nvcc_shared_ok.cu without its barrier: the array is shared by the block (not one per
// thread), so a thread reads a cell another writes.

__global__ void flip(int *data) {
  __device__ __shared__ int stage[256];
  unsigned me = threadIdx.x % 256;
  if (threadIdx.x < 256) stage[me] = data[blockIdx.x * 256 + me];
  if (threadIdx.x < 256) data[blockIdx.x * 256 + me] = stage[255 - me];
}
