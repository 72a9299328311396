//xfail:NOT_ALL_VERIFIED
//--blockDim=96 --gridDim=1
// autosync: expect=count-mismatch
// The producer warps announce 96 participants, the consumer warp 64: one generation of
// barrier 3 is registered with two different thread counts.

__global__ void count_mismatch(float *out) {
  __shared__ float buf[64];
  int warpid = threadIdx.x / 32;
  if (warpid < 2) {
    buf[threadIdx.x] = (float)threadIdx.x;
    asm volatile("bar.arrive 3, 96;");
  } else {
    asm volatile("bar.sync 3, 64;");
    out[threadIdx.x - 64] = buf[threadIdx.x - 64] + buf[threadIdx.x - 32];
  }
}
