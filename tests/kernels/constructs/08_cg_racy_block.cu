//xfail:NOT_ALL_VERIFIED
//--blockDim=256 --gridDim=32
// autosync: races=15-18
// 08_cg_ok_block.cu without the first b.sync(): thread tid reads s[tid + 128] (line R1
// read) while thread tid + 128 writes it (line R1 write).  The cg::sync(b) in the loop
// still orders the later steps.

#include <cooperative_groups.h>
namespace cg = cooperative_groups;

__global__ void cg_block_sum(const int *in, int *out) {
  __shared__ int s[256];
  cg::thread_block b = cg::this_thread_block();
  unsigned tid = b.thread_rank();
  s[tid] = in[blockIdx.x * 256 + tid];  // R1
  for (unsigned half = 128; half > 0; half >>= 1) {
    if (tid < half)
      s[tid] += s[tid + half];  // R1
    cg::sync(b);
  }
  if (tid == 0)
    out[blockIdx.x] = s[0];
}
