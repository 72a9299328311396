//pass
//--blockDim=64 --gridDim=4
// Our own kernel, the race-free twin of mixed_racy.cu: the tile race is ordered by a barrier
// and each block writes its own row of the histogram.
__global__ void mixed(int *out, int *hist) {
  __shared__ int tile[64];
  tile[threadIdx.x] = out[blockIdx.x * 64 + threadIdx.x];
  __syncthreads();
  out[blockIdx.x * 64 + threadIdx.x] = tile[(threadIdx.x + 1) % 64];
  hist[blockIdx.x * 64 + threadIdx.x] = blockIdx.x;
}
