//pass
//--blockDim=64 --gridDim=4
// Two grid phases: each block writes its partial sum; grid sync; block 0 adds the
// partials into the total; grid sync; every thread of every block reads the total.
// Both cross-block orders come from this_grid().sync(); the shared tree needs block syncs.

#include <cooperative_groups.h>
namespace cg = cooperative_groups;

__global__ void two_phase(const int *in, int *partial, int *total, int *out) {
  __shared__ int s[64];
  unsigned tid = threadIdx.x;
  s[tid] = in[blockIdx.x * 64 + tid];
  __syncthreads();
  if (tid == 0) {
    int acc = s[0] + s[63];
    partial[blockIdx.x] = acc;
  }
  cg::this_grid().sync();
  if (blockIdx.x == 0 && tid == 0) {
    int sum = 0;
    for (unsigned b = 0; b < gridDim.x; ++b)
      sum += partial[b];
    *total = sum;
  }
  cg::grid_group g = cg::this_grid();
  cg::sync(g);
  out[blockIdx.x * 64 + tid] = in[blockIdx.x * 64 + tid] + *total;
}
