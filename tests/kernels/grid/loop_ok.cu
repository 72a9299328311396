//pass
//--blockDim=32 --gridDim=4
// loop_racy.cu with both grid barriers of a round.
#include <cooperative_groups.h>
namespace coop = cooperative_groups;
__global__ void ring_rounds(int *cells) {
  unsigned b = blockIdx.x;
  unsigned t = threadIdx.x;
  coop::grid_group grid = coop::this_grid();
  for (int r = 0; r < 3; ++r) {
    int v = cells[((b + 1u) % gridDim.x) * 32u + t];
    grid.sync();
    cells[b * 32u + t] = v + r;
    grid.sync();
  }
}
