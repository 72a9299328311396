//xfail:BARRIER_DIVERGENCE
//--blockDim=128 --gridDim=8
// (Kept out of constructs/ (its twin contract names races) and of tests/kernels/*.cu
// (test_dynamic runs those, and the dynamic oracle answers "unknown" on grid barriers).)
// 08_cg_ok_grid.cu with g.sync() inside a branch only block 0 takes: a grid barrier that
// not every block reaches is divergence (the grid deadlocks on the hardware).
// Two-phase grid reduction with a grid-wide barrier (must be launched cooperatively;
// compiles with plain nvcc -ptx, -rdc=true is not needed by CUDA >= 11): every block
// writes its partial sum to partial[blockIdx.x], g.sync() orders those global writes
// before block 0's thread 0 reads all of them.  Inside a block the usual tree reduction.
// Race-free only because grid.sync() orders global memory ACROSS blocks.

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
    partial[blockIdx.x] = s[0];
  if (blockIdx.x == 0)
    g.sync();
  if (blockIdx.x == 0 && tid == 0) {
    float sum = 0.0f;
    for (unsigned i = 0; i < gridDim.x; ++i)
      sum += partial[i];
    *total = sum;
  }
}
