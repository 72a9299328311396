//pass
//--blockDim=256 --gridDim=64
// The up-sweep of a work-efficient scan with a user-written loop invariant,
// `offset <= n`.  It is not inductive alone (offset <= n does not give 2 * offset <= n);
// it is with the inferred ones: offset == 1 << j and d == (n >> 1) >> j after j
// iterations, and d > 0 in the body, give 2 * offset <= n.  GPUVerify-style: the user
// invariant is checked, and strengthened by the candidates Houdini proves.  Race-free,
// and the invariant holds.

#include "annotations.h"

__global__ void upsweep(float *data, unsigned n) {
  __requires(n >= 2 && n <= 512 && (n & (n - 1)) == 0);
  __shared__ float temp[512];
  unsigned tid = threadIdx.x;
  temp[2 * tid] = data[blockIdx.x * 512 + 2 * tid];
  temp[2 * tid + 1] = data[blockIdx.x * 512 + 2 * tid + 1];
  unsigned offset = 1;
  for (unsigned d = n >> 1; d > 0; d >>= 1) {
    __invariant(offset <= n);
    __syncthreads();
    if (tid < d)
      temp[offset * (2 * tid + 2) - 1] += temp[offset * (2 * tid + 1) - 1];
    offset *= 2;
  }
  __syncthreads();
  data[blockIdx.x * 512 + 2 * tid] = temp[2 * tid];
  data[blockIdx.x * 512 + 2 * tid + 1] = temp[2 * tid + 1];
}
