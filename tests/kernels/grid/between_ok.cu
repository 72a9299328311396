//pass
//--blockDim=64 --gridDim=4
// between_racy.cu ordered by one grid barrier, which also orders the neighbour inside a block.
#include <cooperative_groups.h>
__global__ void shift_left(int *buf, int *out) {
  unsigned g = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned n = gridDim.x * blockDim.x;
  buf[g] = (int)(g * 3u);
  cooperative_groups::this_grid().sync();
  out[g] = buf[(g + 1u) % n];
}
