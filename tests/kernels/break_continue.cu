//pass
//--blockDim=64 --gridDim=4
// break and continue with block-uniform conditions around barriers.

__global__ void break_continue(float *data, int steps) {
  __shared__ float s[64];
  int tid = threadIdx.x;
  float v = data[blockIdx.x * 64 + tid];
  for (int i = 0; i < 16; i++) {
    if (i >= steps) {
      break;
    }
    if (i % 2 == 1) {
      continue;
    }
    s[tid] = v;
    __syncthreads();
    v += s[(tid + i) % 64];
    __syncthreads();
  }
  data[blockIdx.x * 64 + tid] = v;
}
