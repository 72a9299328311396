//pass
//--blockDim=128 --gridDim=32
// Our own kernel: the grid-stride loop with the stride in an int (signed arithmetic, assumed
// not to overflow).  With a thread count that is no power of two (128 x 24) sdv still
// reports a race: its loop abstraction does not keep the stride invariant
// (i - first) % 3072 == 0 -- a known limitation of the abstraction (main had it too).
__global__ void scale(float *y, float alpha, int n) {
  int stride = blockDim.x * gridDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
    y[i] = alpha * y[i];
}
