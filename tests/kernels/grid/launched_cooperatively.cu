//xfail:NOT_ALL_VERIFIED
//--blockDim=64 --gridDim=4
// only_between_racy.cu's kernel, launched cooperatively by the host code: fix may insert a
// grid barrier without --grid-sync.
#include <cuda_runtime.h>
__global__ void pass_on(int *slots, int *out) {
  unsigned b = blockIdx.x;
  unsigned t = threadIdx.x;
  slots[b * 64u + t] = (int)(b + t);
  out[b * 64u + t] = slots[((b + 1u) % gridDim.x) * 64u + t];
}

int main() {
  int *slots, *out;
  cudaMalloc(&slots, 4 * 64 * sizeof(int));
  cudaMalloc(&out, 4 * 64 * sizeof(int));
  void *args[] = {&slots, &out};
  cudaLaunchCooperativeKernel((void *)pass_on, dim3(4), dim3(64), args);
  return 0;
}
