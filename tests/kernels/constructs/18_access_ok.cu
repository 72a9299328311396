//pass
//--blockDim=64 --gridDim=2
// __write(A) / __read(A) / __no_write(A): did this thread write / read A since its last
// barrier; __write_implies(A, e) / __read_implies(A, e): e for every such access, with
// __write_offset_bytes(A) / __read_offset_bytes(A) its byte offset.  Race-free.

#include "annotations_extra.h"

__global__ void accesses(const int *in, int *out) {
  __shared__ int s[64];
  int t = threadIdx.x;
  __assert(__no_write(s));
  s[t] = in[blockIdx.x * 64 + t];
  __assert(__write(s));
  __assert(__write_implies(s, __write_offset_bytes(s) == t * sizeof(int)));
  __syncthreads();
  __assert(__no_write(s));
  out[blockIdx.x * 64 + t] = s[t ^ 1];
  __assert(__read(s));
  __assert(__read_implies(s, __read_offset_bytes(s) / sizeof(int) == (t ^ 1)));
}
