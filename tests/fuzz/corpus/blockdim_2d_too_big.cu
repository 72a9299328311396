//--blockDim=[64,64] --gridDim=1
// fuzz-expect-exit: 2
// 64 x 64 = 4,096 threads per block (each dimension is legal, the product is not).
__global__ void big2(float *a) {
  __shared__ float s[64][64];
  s[threadIdx.y][threadIdx.x] = a[threadIdx.y * 64 + threadIdx.x];
  __syncthreads();
  a[threadIdx.y * 64 + threadIdx.x] = s[threadIdx.x][threadIdx.y];
}
