//xfail:NOT_ALL_VERIFIED
//--blockDim=96 --gridDim=7
// Our own kernel, the racy twin of grid_stride_np2_ok.cu: the stride is one block of 96
// threads, so every block walks over the elements of the blocks after it.
__global__ void scale(float *y, float alpha, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x)
    y[i] = alpha * y[i];
}
