//pass
//--blockDim=32 --gridDim=4
// __same_group: the two threads of the pair are in one block.  Their blockIdx then
// agrees; threads of two blocks write disjoint parts of out.  Race-free.

#include "annotations_extra.h"

__global__ void per_block(float *out) {
  int b = blockIdx.x;
  __assert(__implies(__same_group, __other_int(b) == b));
  out[b * 32 + threadIdx.x] = 1.0f;
}
