//pass
//--blockDim=96 --gridDim=1
// autosync: expect=ok
// CudaDMA-style double buffering ([WEFT] Sec. 2.2): warps 0-1 compute, warp 2 is the DMA
// warp.  Barriers EMPTY+s say "buffer s may be overwritten", FULL+s "buffer s is loaded";
// 96 participants each.  Race-free and well-synchronized.
#define ITERS 8
#define COMPUTE_THREADS 64
#define EMPTY 2
#define FULL 4

__global__ void cudadma_double_buffer(const float *in, float *out) {
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
      acc += buf[stage * COMPUTE_THREADS + (tid + 1) % COMPUTE_THREADS];
      if (it + 2 < ITERS) {
        asm volatile("bar.arrive %0, %1;" :: "r"(EMPTY + stage), "r"(96));
      }
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
