//xfail:NOT_ALL_VERIFIED
//--blockDim=128 --gridDim=8
// autosync: races=15-15
// 06_memcpy_ok.cu with the packing stride wrong (3 instead of 4): thread t's memcpy
// writes rec[3t .. 3t+3] and thread t + 1's writes rec[3t+3 .. 3t+6], so rec[3t+3] gets
// two different values: a write-write race on the memcpy line.  Missed if memcpy is
// treated as a call without memory effects.

#include <cstring>

__global__ void rotate_records(const float *in, float *out) {
  __shared__ float rec[4 * 128];
  int t = threadIdx.x;
  int base = blockIdx.x * 128;
  memcpy(&rec[3 * t], &in[4 * (base + t)], 4 * sizeof(float));  // R1
  float scratch[4];
  memset(scratch, 0, sizeof(scratch));
  __syncthreads();
  int next = (t + 1) % 128;
  memcpy(scratch, &rec[3 * next], sizeof(scratch));
  __builtin_memcpy(&out[4 * (base + t)], scratch, sizeof(scratch));
}
