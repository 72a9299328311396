//xfail:NOT_ALL_VERIFIED
//--blockDim=64 --gridDim=1
// autosync: deadlock=9
// Only warp 0 reaches bar.sync 1, 64 but the barrier expects 64 threads: it never opens.

__global__ void named_deadlock(float *data) {
  int tid = threadIdx.x;
  if (tid < 32) {
    asm volatile("bar.sync 1, 64;");
    data[tid] = 1.0f;
  }
}
