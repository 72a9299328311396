//xfail:NOT_ALL_VERIFIED
//--blockDim=96 --gridDim=1
// autosync: expect=race
// Two-slot ring without its barriers (our own): warp 2 streams STEPS chunks through slots
// step % 2, warps 0-1 sum them.  One arrive/sync pair cannot fix it: outside the loops it
// would publish only the last two chunks (the loader overwrites each slot first), inside them
// the barrier is recycled before the readers are done.  It needs a second barrier the other
// way ("slot free"), as in ring_ok.cu.
#define STEPS 6

__global__ void ring(const float *in, float *out) {
  __shared__ float ring[2 * 32];
  int tid = threadIdx.x;
  int lane = tid % 32;
  if (tid < 64) {
    float acc = 0.0f;
    for (int step = 0; step < STEPS; step++) {
      acc += ring[(step % 2) * 32 + lane];
    }
    out[tid] = acc;
  } else {
    for (int step = 0; step < STEPS; step++) {
      ring[(step % 2) * 32 + lane] = in[step * 32 + lane];
    }
  }
}
