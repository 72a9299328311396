//xfail:NOT_ALL_VERIFIED
//--blockDim=96 --gridDim=1
// autosync: expect=race
// The double-buffered loop of cudadma_double_buffer.cu with WEFT's Listing 3 bug: the compute
// warps signal "buffer empty" (start_async_dma) BEFORE their last read of the buffer, so the
// DMA warp's next write to that buffer races with the read (write-after-read).
#define ITERS 8
#define COMPUTE_THREADS 64
#define EMPTY 2
#define FULL 4

__global__ void cudadma_war_bug(const float *in, float *out) {
  __shared__ float buf[2 * COMPUTE_THREADS];
  int tid = threadIdx.x;
  int warpid = tid / 32;
  if (warpid < 2) {
    float acc = 0.0f;
    asm volatile("bar.arrive %0, %1;" :: "r"(EMPTY), "r"(96));
    asm volatile("bar.arrive %0, %1;" :: "r"(EMPTY + 1), "r"(96));
    for (int it = 0; it < ITERS; it++) {
      int stage = it & 1;
      asm volatile("bar.sync %0, %1;" :: "r"(FULL + stage), "r"(96));
      acc += buf[stage * COMPUTE_THREADS + tid];
      if (it + 2 < ITERS) {
        asm volatile("bar.arrive %0, %1;" :: "r"(EMPTY + stage), "r"(96));
      }
      acc += buf[stage * COMPUTE_THREADS + (tid + 1) % COMPUTE_THREADS];
    }
    out[tid] = acc;
  } else {
    int lane = tid % 32;
    for (int it = 0; it < ITERS; it++) {
      int stage = it & 1;
      asm volatile("bar.sync %0, %1;" :: "r"(EMPTY + stage), "r"(96));
      buf[stage * COMPUTE_THREADS + lane] = in[it * COMPUTE_THREADS + lane];
      buf[stage * COMPUTE_THREADS + lane + 32] = in[it * COMPUTE_THREADS + lane + 32];
      asm volatile("bar.arrive %0, %1;" :: "r"(FULL + stage), "r"(96));
    }
  }
}
