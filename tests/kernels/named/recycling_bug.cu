//xfail:NOT_ALL_VERIFIED
//--blockDim=96 --gridDim=1
// autosync: expect=unsafe-recycling
// Barrier 1 is reused by two producers (warps 0 and 2) for one consumer (warp 1), but nothing
// orders warp 2's arrive after the first generation completes: in some schedules warp 2's
// arrive matches the consumer's FIRST sync and the consumer reads b before it is written.

__global__ void recycling_bug(float *out) {
  __shared__ float a[32];
  __shared__ float b[32];
  int warpid = threadIdx.x / 32;
  int lane = threadIdx.x % 32;
  if (warpid == 0) {
    a[lane] = 1.0f;
    asm volatile("bar.arrive 1, 64;");
  } else if (warpid == 1) {
    asm volatile("bar.sync 1, 64;");
    float x = a[lane];
    asm volatile("bar.sync 1, 64;");
    float y = b[lane];
    out[lane] = x + y;
  } else {
    b[lane] = 2.0f;
    asm volatile("bar.arrive 1, 64;");
  }
}
