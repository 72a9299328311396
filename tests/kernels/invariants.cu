//pass
//--blockDim=64 --gridDim=16
// Loop invariants in the for header, a global invariant and the access predicates
// GPUVerify offers (__write_implies, __read_implies, offsets, __same_group).

#include "annotations.h"

__global__ void scaled_sum(float *data, int len) {
  __requires(len == 1024);
  __shared__ float s[64];
  int tid = threadIdx.x;
  float acc = 0.0f;
  for (int i = tid;
       __invariant(i % 64 == tid),
       __global_invariant(__write_implies(s, __write_offset_bytes(s) / sizeof(float) == tid)),
       __invariant(__read_implies(data, __read_offset_bytes(data) / sizeof(float) % 64 == tid)),
       i < len; i += 64) {
    acc += data[blockIdx.x * len + i];
  }
  s[tid] = acc;
  __assert(__implies(__same_group, tid < 64));
  __syncthreads();
  data[blockIdx.x * len + tid] = acc + s[63 - tid];
}
