//pass
//--blockDim=64 --gridDim=2
// A thread-dependent switch that writes shared memory, followed by a barrier.

__global__ void switch_kernel(int *data) {
  __shared__ int s[64];
  int tid = threadIdx.x;
  switch (tid % 4) {
  case 0:
    s[tid] = 1;
    break;
  case 1:
  case 2:
    s[tid] = data[blockIdx.x * 64 + tid];
    break;
  default:
    s[tid] = -1;
  }
  __syncthreads();
  data[blockIdx.x * 64 + tid] = s[63 - tid];
}
