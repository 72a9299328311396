//xfail:NOT_ALL_VERIFIED
//--blockDim=128 --gridDim=8
// autosync: races=24-29
// 08_cg_ok_grid.cu with g.sync() replaced by a block barrier: block 0 reads partial[i]
// (line R1 read) while block i writes it (line R1 write) -- a cross-block race on global
// memory that __syncthreads() cannot order.

#include <cooperative_groups.h>
namespace cg = cooperative_groups;

__global__ void grid_sum(const float *in, float *partial, float *total) {
  __shared__ float s[128];
  cg::thread_block b = cg::this_thread_block();
  cg::grid_group g = cg::this_grid();
  unsigned tid = threadIdx.x;
  s[tid] = in[blockIdx.x * 128 + tid];
  b.sync();
  for (unsigned half = 64; half > 0; half >>= 1) {
    if (tid < half)
      s[tid] += s[tid + half];
    b.sync();
  }
  if (tid == 0)
    partial[blockIdx.x] = s[0];  // R1
  b.sync();
  if (blockIdx.x == 0 && tid == 0) {
    float sum = 0.0f;
    for (unsigned i = 0; i < gridDim.x; ++i)
      sum += partial[i];  // R1
    *total = sum;
  }
}
