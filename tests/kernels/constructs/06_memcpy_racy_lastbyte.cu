//xfail:NOT_ALL_VERIFIED
//--blockDim=64 --gridDim=4
// autosync: races=16-16,16-17
// 06_memcpy_ok_bytes.cu with the memset one byte too long: thread t's memset writes
// buf[7t .. 7t+7], so its LAST byte is the first byte of thread t + 1's range, which
// thread t + 1 also sets (line R1 against itself) and then copies into (line R2).  Only a
// byte-exact model of the range finds it: a model by words or by first byte misses it.
// Each thread sets its own byte value t, so the two memsets store different values.

#include <cstring>
#include "annotations.h"
__global__ void pack7(const unsigned char *in, unsigned char *out, int n) {
  __requires(n >= 0 && n <= 7);
  __shared__ unsigned char buf[7 * 64 + 1];
  int t = threadIdx.x;
  memset(&buf[7 * t], t, 8);  // R1
  memcpy(&buf[7 * t], in + 7 * (blockIdx.x * 64 + t), n);  // R2
  __syncthreads();
  int u = (t + 1) % 64;
  memcpy(out + 7 * (blockIdx.x * 64 + t), &buf[7 * u], 7);
}
