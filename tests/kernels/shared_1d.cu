//pass
//--blockDim=256 --gridDim=64
// Reverse a block-sized chunk through a 1-D shared array.

__global__ void reverse_block(const int *in, int *out) {
  __shared__ int buf[256];
  int tid = threadIdx.x;
  int base = blockIdx.x * blockDim.x;
  buf[tid] = in[base + tid];
  __syncthreads();
  out[base + tid] = buf[255 - tid];
}
