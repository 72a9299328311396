//pass
//--blockDim=64 --gridDim=2
// __other_int(e): e in the OTHER thread of the checked pair.  Slots t are distinct for
// distinct threads of a block, which is what makes the store race-free.

#include "annotations_extra.h"

__global__ void slots(int *out) {
  __shared__ int s[64];
  int slot = (threadIdx.x * 5) % 64;
  __assert(__implies(__same_group, __other_int(slot) != slot));
  s[slot] = threadIdx.x;
  __syncthreads();
  out[blockIdx.x * 64 + threadIdx.x] = s[threadIdx.x];
}
