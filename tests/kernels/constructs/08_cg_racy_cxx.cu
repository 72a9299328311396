//xfail:NOT_ALL_VERIFIED
//--blockDim=128 --gridDim=4
// autosync: races=15-16
// 08_cg_ok_cxx.cu without the b.sync() between the neighbour read (line 15) and the write
// s[tid] = v (line 16): thread t writes s[t] while thread t - 1 reads it.

#include <cooperative_groups.h>

__global__ void cg_shift(const int *in, int *out) {
  __shared__ int s[128];
  cooperative_groups::thread_block b = cooperative_groups::this_thread_block();
  unsigned tid = b.thread_rank();
  s[tid] = in[blockIdx.x * 128 + tid];
  cooperative_groups::sync(b);
  int v = s[(tid + 1) % b.size()];
  s[tid] = v;
  out[blockIdx.x * 128 + tid] = s[tid];
}
