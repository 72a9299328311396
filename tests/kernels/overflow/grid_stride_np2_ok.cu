//pass
//--blockDim=96 --gridDim=7
// Our own kernel: the grid-stride loop with 672 threads, no power of two.  The stride
// blockDim.x * gridDim.x is unsigned, and so is the sum i + stride; the sum of two values
// that fit in an int is assumed to fit when converted back to int (a stated assumption), so
// each element is visited by exactly one thread.
__global__ void scale(float *y, float alpha, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    y[i] = alpha * y[i];
}
