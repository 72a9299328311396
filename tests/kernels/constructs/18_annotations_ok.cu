//pass
//--blockDim=256 --gridDim=8
// Every GPUVerify annotation we know of, on a strided block copy that is race-free:
// __requires inside a __device__ function and in the kernel, __ensures, __invariant and
// __global_invariant on the loop, __implies, __read / __write (this thread accessed the
// array in the current barrier interval), __other_int (the other thread of the checked
// pair), __uniform_int and __same_group.  All assertions hold; thread t writes only
// s[t + 256 k] and reads it back itself.  Race-free, no assertion fails.

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
    s[i] = in[blockIdx.x * n + clamp_index(i, n)];
    __assert(__write(s));  // this thread wrote s since the last barrier
  }
  __assert(__implies(__same_group, __other_int(t) != t));
  __assert(__implies(t < 128, t + 128 < 256));
  for (int i = t; __invariant(i % 256 == t), i < n; i += 256) {
    out[blockIdx.x * n + i] = 2.0f * s[i];
    __assert(__read(s));
  }
}
