//--blockDim=64 --gridDim=1
// fuzz-expect-exit: 2
// K&R-style parameter lists (not C++; CUDA rejects them).
__device__ int twice(x) int x; { return 2 * x; }
__global__ void knr(a, n) int *a; int n; {
  a[threadIdx.x] = twice(n);
}
