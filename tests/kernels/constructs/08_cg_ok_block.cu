//pass
//--blockDim=256 --gridDim=32
// Block reduction with cooperative groups: the thread_block handle's b.sync() and the
// free function cg::sync(b) are both __syncthreads() for the block.  Tree reduction
// pattern: one writer per cell per step, a block barrier after each step.  Race-free.

#include <cooperative_groups.h>
namespace cg = cooperative_groups;

__global__ void cg_block_sum(const int *in, int *out) {
  __shared__ int s[256];
  cg::thread_block b = cg::this_thread_block();
  unsigned tid = b.thread_rank();
  s[tid] = in[blockIdx.x * 256 + tid];
  b.sync();
  for (unsigned half = 128; half > 0; half >>= 1) {
    if (tid < half)
      s[tid] += s[tid + half];
    cg::sync(b);
  }
  if (tid == 0)
    out[blockIdx.x] = s[0];
}
