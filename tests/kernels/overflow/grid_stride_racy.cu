//xfail:NOT_ALL_VERIFIED
//--blockDim=256 --gridDim=64
// Our own kernel, the racy twin of grid_stride_ok.cu: the stride is one block, so every
// block walks over the elements of the blocks after it -- a race between blocks only.
__global__ void axpy(float *y, const float *x, float alpha, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x)
    y[i] = alpha * x[i] + y[i];
}
