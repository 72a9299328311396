//pass
//--blockDim=64 --gridDim=4
// Byte-granular memcpy/memset: thread t owns the 7 bytes buf[7t .. 7t+6] of a shared byte
// buffer (7 is odd, so no copy is word-aligned), fills them with memset, then copies its
// 7 bytes of global input over them with a size only known at run time (n <= 7), and after
// the barrier copies the 7 bytes of its neighbour to global memory.  Ranges touch but never
// overlap.  Race-free.

#include <cstring>
#include "annotations.h"
__global__ void pack7(const unsigned char *in, unsigned char *out, int n) {
  __requires(n >= 0 && n <= 7);
  __shared__ unsigned char buf[7 * 64];
  int t = threadIdx.x;
  memset(&buf[7 * t], 0xff, 7);
  memcpy(&buf[7 * t], in + 7 * (blockIdx.x * 64 + t), n);
  __syncthreads();
  int u = (t + 1) % 64;
  memcpy(out + 7 * (blockIdx.x * 64 + t), &buf[7 * u], 7);
}
