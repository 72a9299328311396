//pass
//--blockDim=96 --gridDim=1
// autosync: expect=ok
// The race-free twin of ring_racy.cu (our own): each slot s has a "full" barrier (1 + s: the
// loader arrives after filling it, the readers wait) and a "free" barrier (3 + s: the readers
// arrive after reading it, the loader waits before refilling it two steps later).
#define STEPS 6

__global__ void ring(const float *in, float *out) {
  __shared__ float ring[2 * 32];
  int tid = threadIdx.x;
  int lane = tid % 32;
  if (tid < 64) {
    float acc = 0.0f;
    for (int step = 0; step < STEPS; step++) {
      int s = step % 2;
      asm volatile("bar.sync %0, 96;" :: "r"(1 + s));
      acc += ring[s * 32 + lane];
      if (step + 2 < STEPS) {
        asm volatile("bar.arrive %0, 96;" :: "r"(3 + s));
      }
    }
    out[tid] = acc;
  } else {
    for (int step = 0; step < STEPS; step++) {
      int s = step % 2;
      if (step >= 2) {
        asm volatile("bar.sync %0, 96;" :: "r"(3 + s));
      }
      ring[s * 32 + lane] = in[step * 32 + lane];
      asm volatile("bar.arrive %0, 96;" :: "r"(1 + s));
    }
  }
}
