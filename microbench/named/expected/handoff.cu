//pass
//--blockDim=96 --gridDim=1
// autosync: min_barriers=2
// Single-slot hand-off (our own): warp 2 loads one chunk per step into a shared slot, warps
// 0-1 reduce it.  After each read the reducers meet the loader on SLOT_FREE (bar.sync on both
// sides) before it refills the slot, but nothing tells the reducers that the slot is full.
// One pair fixes it only inside both loops (arrive after the load, sync before the read):
// outside them the loader would wait on SLOT_FREE for reducers stuck before their loop.
#define STEPS 6
#define SLOT_FREE 3

__global__ void handoff(const float *in, float *out) {
  __shared__ float slot[64];
  int tid = threadIdx.x;
  if (tid < 64) {
    float acc = 0.0f;
    for (int it = 0; it < STEPS; it++) {
      asm volatile("bar.sync 1, 96;");
      acc += slot[(tid + it) % 64];
      if (it + 1 < STEPS) {
        asm volatile("bar.sync 3, 96;");
      }
    }
    out[tid] = acc;
  } else {
    int lane = tid - 64;
    for (int it = 0; it < STEPS; it++) {
      if (it > 0) {
        asm volatile("bar.sync 3, 96;");
      }
      slot[lane] = in[it * 64 + lane];
      slot[lane + 32] = in[it * 64 + lane + 32];
      asm volatile("bar.arrive 1, 96;");
    }
  }
}
