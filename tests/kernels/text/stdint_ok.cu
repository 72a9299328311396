//pass
//--blockDim=256 --gridDim=2
// <stdint.h> and <cstdint>: fixed-width types and their limits.  Each thread packs a byte
// into a shared histogram slot of its own, then reads its neighbour's after the barrier.
#include <stdint.h>
#include <cstdint>

__global__ void pack(const uint8_t *in, int64_t *out) {
  __shared__ uint32_t s[256];
  uint32_t t = threadIdx.x;
  uint8_t b = in[blockIdx.x * 256 + t];
  s[t] = (uint32_t)b < UINT8_MAX ? (uint32_t)b : 0u;
  __syncthreads();
  int64_t v = (int64_t)s[(t + 255) % 256];
  out[blockIdx.x * 256 + t] = v < INT32_MAX ? v : (int64_t)INT32_MAX;
}
