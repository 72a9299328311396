//pass
//--blockDim=64 --gridDim=4
// only_between_racy.cu with the grid barrier written: every block's slot is written before
// any block reads its neighbour's.
#include <cooperative_groups.h>
namespace coop = cooperative_groups;
__global__ void pass_on(int *slots, int *out) {
  unsigned b = blockIdx.x;
  unsigned t = threadIdx.x;
  slots[b * 64u + t] = (int)(b + t);
  coop::this_grid().sync();
  out[b * 64u + t] = slots[((b + 1u) % gridDim.x) * 64u + t];
}
