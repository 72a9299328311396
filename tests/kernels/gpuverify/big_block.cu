//pass
//--blockDim=2048 --gridDim=2
// A block of 2,048 threads, past CUDA's 1,024: GPUVerify analyses it as written.
// Each thread doubles its own element: no race.
__global__ void twice(float *vals) {
  unsigned me = blockIdx.x * blockDim.x + threadIdx.x;
  vals[me] = vals[me] * 2.0f;
}
