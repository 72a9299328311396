//pass
//--blockDim=64 --gridDim=2
// The barrier is written through a macro, as some code bases do.

#define syncthreads __syncthreads

__global__ void barrier_via_macro(float *data) {
  __shared__ float s[64];
  int tid = threadIdx.x;
  s[tid] = data[blockIdx.x * 64 + tid];
  syncthreads();
  data[blockIdx.x * 64 + tid] = s[63 - tid];
}
