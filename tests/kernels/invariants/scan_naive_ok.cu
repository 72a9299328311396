//pass
//--blockDim=512 --gridDim=64
// Naive (Hillis-Steele) inclusive scan of one 512-element tile per block, double-buffered
// in a shared array of 2 * blockDim: step `offset` reads buffer `pin` and writes buffer
// `pout`, then the buffers swap.  The step count depends on the parameter `n`, so the loop
// is abstracted: race-freedom needs `pout` uniform, `pin == 1 - pout` and
// `pout` in {0, 1} at the loop head.  Race-free.

#define TILE 512

__global__ void scan_naive(float *out, const float *in, unsigned n) {
  __shared__ float buf[2 * TILE];
  unsigned tid = threadIdx.x;
  unsigned pout = 0, pin = 1;
  buf[tid] = in[blockIdx.x * TILE + tid];
  __syncthreads();
  for (unsigned offset = 1; offset < n; offset *= 2) {
    pout = 1 - pout;
    pin = 1 - pout;
    if (tid >= offset)
      buf[pout * TILE + tid] = buf[pin * TILE + tid] + buf[pin * TILE + tid - offset];
    else
      buf[pout * TILE + tid] = buf[pin * TILE + tid];
    __syncthreads();
  }
  out[blockIdx.x * TILE + tid] = buf[pout * TILE + tid];
}
