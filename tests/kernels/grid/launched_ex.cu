//xfail:NOT_ALL_VERIFIED
//--blockDim=64 --gridDim=4
// only_between_racy.cu's kernel, launched by cudaLaunchKernelEx with the cooperative
// attribute: fix may insert a grid barrier without --grid-sync (its sizes are in the config
// struct, which the host reader does not follow: the header gives them).
#include <cuda_runtime.h>
__global__ void pass_on(int *slots, int *out) {
  unsigned b = blockIdx.x;
  unsigned t = threadIdx.x;
  slots[b * 64u + t] = (int)(b + t);
  out[b * 64u + t] = slots[((b + 1u) % gridDim.x) * 64u + t];
}

void run(int *slots, int *out) {
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(4);
  config.blockDim = dim3(64);
  cudaLaunchAttribute attribute[1];
  attribute[0].id = cudaLaunchAttributeCooperative;
  attribute[0].val.cooperative = 1;
  config.attrs = attribute;
  config.numAttrs = 1;
  cudaLaunchKernelEx(&config, pass_on, slots, out);
}
