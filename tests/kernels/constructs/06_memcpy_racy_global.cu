//xfail:NOT_ALL_VERIFIED
//--blockDim=128 --gridDim=8
// autosync: races=15-15,15-18,18-18
// 06_memcpy_ok_global.cu with the record stride 3 instead of 4: thread gid's 16-byte
// copy back (line R2) covers out[3 gid .. 3 gid + 3], whose last int is the first int of
// thread gid + 1's record: it races with that thread's memset (line R1) and copy (R2),
// and so does the memset itself (line R1 against line R1: each thread sets its own byte
// value, so the two stores differ).

#include <cstring>

__global__ void copy_records(const int *in, int *out) {
  int gid = blockIdx.x * 128 + threadIdx.x;
  int scratch[4];
  memset(&out[3 * gid], gid & 0xff, 4 * sizeof(int));  // R1
  memcpy(scratch, &in[4 * gid], sizeof(scratch));
  scratch[0] += 1;
  memcpy(&out[3 * gid], scratch, sizeof(scratch));  // R2
}
