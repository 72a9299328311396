//pass
//--blockDim=256 --gridDim=4
// nvcc accepts '__device__ __shared__' on an array declared inside a kernel and reads it as
// '__shared__' (clang refuses the pair): one block-wide array, a barrier between the
// stores and the reversed reads.

__global__ void flip(int *data) {
  __device__ __shared__ int stage[256];
  unsigned me = threadIdx.x % 256;
  unsigned at = blockIdx.x * 256 + me;
  if (threadIdx.x < 256) stage[me] = data[at];
  __syncthreads();
  if (threadIdx.x < 256) data[at] = stage[255 - me];
}
