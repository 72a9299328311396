//xfail:NOT_ALL_VERIFIED
//--blockDim=2048 --gridDim=2
// The same launch; each thread also reads its right neighbour, which that neighbour writes.
__global__ void twice(float *vals) {
  unsigned me = blockIdx.x * blockDim.x + threadIdx.x;
  vals[me] = vals[me] + vals[me + 1];
}
