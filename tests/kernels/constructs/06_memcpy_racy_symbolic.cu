//xfail:NOT_ALL_VERIFIED
//--blockDim=64 --gridDim=4
// autosync: races=16-16
// 06_memcpy_ok_bytes.cu where the run-time size may exceed the 7 bytes a thread owns
// (n <= 8): thread t's copy of n bytes can reach buf[7t + 7], the first byte of thread
// t + 1's range, which thread t + 1's own copy writes too (line R1 against itself); the
// source bytes differ (stride 8 in `in`), so the two writes can store different values.
// Missed if a copy of symbolic size is treated as a copy of some fixed size.

#include <cstring>
#include "annotations.h"
__global__ void pack7(const unsigned char *in, unsigned char *out, int n) {
  __requires(n >= 0 && n <= 8);
  __shared__ unsigned char buf[7 * 64 + 1];
  int t = threadIdx.x;
  memcpy(&buf[7 * t], in + 8 * (blockIdx.x * 64 + t), n);  // R1
  __syncthreads();
  int u = (t + 1) % 64;
  memcpy(out + 7 * (blockIdx.x * 64 + t), &buf[7 * u], 7);
}
