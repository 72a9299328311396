//pass
//--blockDim=256 --gridDim=128
// Many dot products, one vector per block in a grid-stride loop (our own kernel): per-thread
// partial sums into shared memory, then a tree reduction with a block-strided inner loop.
#define ACC 1024
__global__ void dotMany(float *res, const float *x, const float *y, int nvec, int len) {
  __shared__ float part[ACC];
  for (int v = blockIdx.x; v < nvec; v += gridDim.x) {
    int first = len * v;
    int last = first + len;
    for (int a = threadIdx.x; a < ACC; a += blockDim.x) {
      float s = 0;
      for (int p = first + a; p < last; p += ACC)
        s += x[p] * y[p];
      part[a] = s;
    }
    for (int half = ACC / 2; half > 0; half >>= 1) {
      __syncthreads();
      for (int a = threadIdx.x; a < half; a += blockDim.x)
        part[a] += part[half + a];
    }
    __syncthreads();
    if (threadIdx.x == 0) res[v] = part[0];
  }
}
