//xfail:NOT_ALL_VERIFIED
//--blockDim=64 --gridDim=4
// autosync: races=10-13
// The consumer reads before it waits on the named barrier: race with the producer.

__global__ void racy_consumer(const float *in, float *out) {
  __shared__ float buf[32];
  int tid = threadIdx.x;
  if (tid < 32) {
    buf[tid] = in[blockIdx.x * 32 + tid];
    asm volatile("bar.arrive 1, 64;");
  } else {
    float v = buf[tid - 32];
    asm volatile("bar.sync 1, 64;");
    out[blockIdx.x * 32 + tid - 32] = v;
  }
}
