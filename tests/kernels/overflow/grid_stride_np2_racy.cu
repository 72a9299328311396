//xfail:NOT_ALL_VERIFIED
//--blockDim=96 --gridDim=7
// Our own kernel, the racy twin of grid_stride_np2_ok.cu: the stride is one element short of
// the grid (671), so the last thread's first element (671) is the first thread's second.
__global__ void scale(float *y, float alpha, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x - 1)
    y[i] = alpha * y[i];
}
