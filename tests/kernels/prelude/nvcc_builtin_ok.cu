//pass
//--blockDim=256 --gridDim=4
// A file's own max of the signature of CUDA's (nvcc accepts both; clang refuses the pair):
// the file's definition is the one its calls mean.  Here it is the usual maximum, so each
// thread writes its own cell.

__device__ int max(int a, int b) { return a > b ? a : b; }

__global__ void clampIndex(int *out) {
  int me = blockIdx.x * blockDim.x + threadIdx.x;
  out[max(me, 0)] = me;
}
