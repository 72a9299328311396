//pass
//--blockDim=64 --gridDim=2
// autosync: min_barriers=2
// Staged load (our own): warp 0 fills four stages of a shared buffer in a loop, one slot per
// stage; warp 1 folds the stages in a loop.  The least costly pair lies outside both loops
// (C = 1/2 + 1/2); inside them it would cost 50 + 50 and recycle the barrier unsafely.
#define STAGES 4

__global__ void stage_fill(const float *in, float *out) {
  __shared__ float stage[STAGES * 32];
  int warp = threadIdx.x / 32;
  int lane = threadIdx.x % 32;
  if (warp == 0) {
    for (int s = 0; s < STAGES; s++) {
      stage[s * 32 + lane] = in[(blockIdx.x * STAGES + s) * 32 + lane];
    }
    asm volatile("bar.arrive 1, 64;");
  } else {
    float acc = 0.0f;
    asm volatile("bar.sync 1, 64;");
    for (int s = 0; s < STAGES; s++) {
      acc = acc * 0.5f + stage[s * 32 + (lane + s) % 32];
    }
    out[blockIdx.x * 32 + lane] = acc;
  }
}
