//pass
//--blockDim=64 --gridDim=4
// A grid barrier between a read and a write of each thread's own element: no other thread
// of any block meets it, so fix --minimize deletes it (the include and alias stay).
#include <cooperative_groups.h>
namespace coop = cooperative_groups;
__global__ void scale(int *data) {
  unsigned g = blockIdx.x * 64u + threadIdx.x;
  int v = data[g] * 3;
  coop::this_grid().sync();
  data[g] = v;
}
