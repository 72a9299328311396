//pass
//--blockDim=256 --gridDim=128
// autosync: min_barriers=1 original_barriers=1
// Final pass of a large scan: add each block's offset (one per block, read once into
// shared memory by thread 0) to four elements per thread.

typedef unsigned int uint;

__global__ void uniformUpdate(uint4 *d_Data, uint *d_Buffer) {
  __shared__ uint buf;
  uint pos = blockIdx.x * blockDim.x + threadIdx.x;
  if (threadIdx.x == 0) {
    buf = d_Buffer[blockIdx.x];
  }
  __syncthreads();
  uint4 data4 = d_Data[pos];
  data4.x += buf;
  data4.y += buf;
  data4.z += buf;
  data4.w += buf;
  d_Data[pos] = data4;
}
