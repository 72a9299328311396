//pass
//--blockDim=128 --gridDim=32
// An early return on a block-uniform condition: whole blocks leave before any barrier.

__global__ void early_return(const float *in, float *out, int numBlocksUsed) {
  __shared__ float s[128];
  int tid = threadIdx.x;
  if (blockIdx.x >= numBlocksUsed) {
    return;
  }
  s[tid] = in[blockIdx.x * 128 + tid];
  __syncthreads();
  out[blockIdx.x * 128 + tid] = s[tid ^ 64];
}
