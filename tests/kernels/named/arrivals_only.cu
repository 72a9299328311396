//xfail:NOT_ALL_VERIFIED
//--blockDim=64 --gridDim=1
// autosync: expect=arrivals-only
// The consumer meant to wait but wrote bar.arrive: barrier 2's generation is completed by
// arrivals alone, nobody waits on it, and the consumer reads buf unsynchronized.

__global__ void arrivals_only(float *out) {
  __shared__ float buf[32];
  int warpid = threadIdx.x / 32;
  int lane = threadIdx.x % 32;
  if (warpid == 0) {
    buf[lane] = 3.0f;
    asm volatile("bar.arrive 2, 64;");
  } else {
    asm volatile("bar.arrive 2, 64;");
    out[lane] = buf[lane];
  }
}
