//pass
//--blockDim=256 --gridDim=8
// __launch_bounds__ and GCC-style __attribute__((...)).

__device__ __attribute__((always_inline)) inline int sq(int v) { return v * v; }

__global__ void __launch_bounds__(256, 2) attr_kernel(int *data) {
  __shared__ __attribute__((aligned(16))) int s[256];
  int tid = threadIdx.x;
  s[tid] = sq(data[blockIdx.x * 256 + tid]);
  __syncthreads();
  data[blockIdx.x * 256 + tid] = s[(tid + 128) % 256];
}
