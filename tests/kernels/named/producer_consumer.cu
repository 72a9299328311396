//pass
//--blockDim=64 --gridDim=4
// Warp 0 produces and signals with bar.arrive (non-blocking); warp 1 waits with bar.sync
// on the same named barrier (id 1, 64 threads) and then consumes.

__global__ void producer_consumer(const float *in, float *out) {
  __shared__ float buf[32];
  int tid = threadIdx.x;
  if (tid < 32) {
    buf[tid] = in[blockIdx.x * 32 + tid] * 2.0f;
    asm volatile("bar.arrive 1, 64;");
  } else {
    asm volatile("bar.sync 1, 64;");
    out[blockIdx.x * 32 + tid - 32] = buf[63 - tid];
  }
}
