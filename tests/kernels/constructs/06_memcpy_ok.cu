//pass
//--blockDim=128 --gridDim=8
// Records of 4 floats moved with memcpy / __builtin_memcpy / memset on global, shared and
// local data.  Thread t copies record t of its block into rec[4t .. 4t+3] (its own 16
// bytes of shared memory), clears a local scratch array with memset, and after the
// barrier copies the NEXT thread's record out to global memory.  Race-free.

#include <cstring>

__global__ void rotate_records(const float *in, float *out) {
  __shared__ float rec[4 * 128];
  int t = threadIdx.x;
  int base = blockIdx.x * 128;
  memcpy(&rec[4 * t], &in[4 * (base + t)], 4 * sizeof(float));
  float scratch[4];
  memset(scratch, 0, sizeof(scratch));
  __syncthreads();
  int next = (t + 1) % 128;
  memcpy(scratch, &rec[4 * next], sizeof(scratch));
  __builtin_memcpy(&out[4 * (base + t)], scratch, sizeof(scratch));
}
