//pass
//--blockDim=128 --gridDim=4
// Cooperative groups spelled out without a namespace alias: cooperative_groups::sync(b)
// and b.sync() are block barriers, b.size() the block size.  Race-free.

#include <cooperative_groups.h>

__global__ void cg_shift(const int *in, int *out) {
  __shared__ int s[128];
  cooperative_groups::thread_block b = cooperative_groups::this_thread_block();
  unsigned tid = b.thread_rank();
  s[tid] = in[blockIdx.x * 128 + tid];
  cooperative_groups::sync(b);
  int v = s[(tid + 1) % b.size()];
  b.sync();
  s[tid] = v;
  out[blockIdx.x * 128 + tid] = s[tid];
}
