//xfail:NOT_ALL_VERIFIED
//--blockDim=256 --gridDim=8
// autosync: races=25-31
// 18_annotations_ok.cu with the second loop reading the NEIGHBOUR's cells (i + 1): the
// annotations all still hold, but s[i + 1] (line R1 read) is written by thread t + 1 in
// the first loop (line R1 write) with no barrier between.

#include "annotations_extra.h"

__device__ int clamp_index(int i, int n) {
  __requires(n > 0);
  __ensures(__return_val_int() >= 0 && __return_val_int() < n);
  return i < 0 ? 0 : (i >= n ? n - 1 : i);
}

__global__ void strided_copy(const float *in, float *out, int n) {
  __requires(n == 1024);
  __requires(__uniform_int(n));
  __shared__ float s[1024];
  int t = threadIdx.x;
  for (int i = t;
       __invariant(i % 256 == t),
       __global_invariant(__write_implies(s, __write_offset_bytes(s) / sizeof(float) % 256 == t)),
       i < n; i += 256) {
    s[i] = in[blockIdx.x * n + clamp_index(i, n)];  // R1
    __assert(__write(s));  // this thread wrote s since the last barrier
  }
  __assert(__implies(__same_group, __other_int(t) != t));
  __assert(__implies(t < 128, t + 128 < 256));
  for (int i = t; __invariant(i % 256 == t), i < n; i += 256) {
    out[blockIdx.x * n + i] = 2.0f * s[(i + 1) % n];  // R1
    __assert(__read(s));
  }
}
