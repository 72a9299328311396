//pass
//--blockDim=64 --gridDim=1
// BAD INPUT: a recursive __device__ function cannot be inlined; the front end must
// reject it with a clear message.

__device__ int fact(int n) {
  return n <= 1 ? 1 : n * fact(n - 1);
}

__global__ void recursive(int *data) {
  __shared__ int s[64];
  int tid = threadIdx.x;
  s[tid] = fact(tid % 8);
  __syncthreads();
  data[tid] = s[63 - tid];
}
