//pass
//--blockDim=128 --gridDim=8
// memcpy and memset on global memory and on a local struct-free scratch buffer: thread
// gid clears its own 16-byte record of `out` with memset, then copies its record of `in`
// into a local array and from there back over its own record.  Every range belongs to one
// thread.  Race-free.

#include <cstring>

__global__ void copy_records(const int *in, int *out) {
  int gid = blockIdx.x * 128 + threadIdx.x;
  int scratch[4];
  memset(&out[4 * gid], 0, 4 * sizeof(int));
  memcpy(scratch, &in[4 * gid], sizeof(scratch));
  scratch[0] += 1;
  memcpy(&out[4 * gid], scratch, sizeof(scratch));
}
