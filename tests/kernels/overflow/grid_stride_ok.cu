//pass
//--blockDim=256 --gridDim=64
// Our own kernel: the grid-stride loop, each element visited by exactly one thread of the grid.
__global__ void axpy(float *y, const float *x, float alpha, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    y[i] = alpha * x[i] + y[i];
}
