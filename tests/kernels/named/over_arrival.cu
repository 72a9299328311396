//xfail:NOT_ALL_VERIFIED
//--blockDim=128 --gridDim=1
// autosync: expect=over-arrival
// Three producer warps arrive at barrier 1 whose count (64) only admits two warps' worth of
// threads per generation: 96 arrivals for one generation.

__global__ void over_arrival(float *out) {
  __shared__ float buf[96];
  int warpid = threadIdx.x / 32;
  if (warpid < 3) {
    buf[threadIdx.x] = 1.0f;
    asm volatile("bar.arrive 1, 64;");
  } else {
    asm volatile("bar.sync 1, 64;");
    out[threadIdx.x] = buf[threadIdx.x - 96];
  }
}
