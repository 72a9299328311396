//pass
//--blockDim=256 --gridDim=64
// Issue 28, item 4: the shape of a kernel that timed out at 60 s (our own code).
// One-dimensional Haar wavelet, several levels per block (our own kernel): each block loads
// 512 samples, writes the first level's details, then halves the active threads per level,
// combining pairs of approximations in shared memory.
#define RSQRT2 0.70710678f
#ifndef __AUTOSYNC__
#define __requires(e)
#endif
__global__ void haarLevels(const float *in, float *detail, float *approx, unsigned levels,
                           unsigned half_len) {
  __requires(half_len == 64 * 256);  // the details of level 1 lie above those of the others
  __requires(levels <= 9);
  __shared__ float sm[512];
  const unsigned bdim = blockDim.x;
  const unsigned tid = threadIdx.x;
  const unsigned bid = blockIdx.x;
  const unsigned base = bid * 2 * bdim + tid;
  sm[tid] = in[base];
  sm[tid + bdim] = in[base + bdim];
  __syncthreads();
  float a = sm[2 * tid];
  float b = sm[2 * tid + 1];
  __syncthreads();
  detail[bid * bdim + tid + half_len] = (a - b) * RSQRT2;
  sm[tid] = (a + b) * RSQRT2;
  __syncthreads();
  if (levels > 1) {
    unsigned stride = 1;
    unsigned active = bdim >> 1;
    unsigned pos = tid * 2;
    for (unsigned lv = 1; lv < levels; ++lv) {
      if (tid < active) {
        float p = sm[pos];
        float q = sm[pos + stride];
        detail[active * gridDim.x + bid * active + tid] = (p - q) * RSQRT2;
        sm[pos] = (p + q) * RSQRT2;
        pos <<= 1;
      }
      active >>= 1;
      stride <<= 1;
      __syncthreads();
    }
    if (tid == 0)
      approx[bid] = sm[0];
  }
}
