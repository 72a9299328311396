//xfail:NOT_ALL_VERIFIED
//--blockDim=256 --gridDim=64
// upsweep_user_ok.cu with the user invariant `offset < n / 2`: false in the last step
// (d == 1, offset == n / 2), so it must still be reported: "might not hold".

#include "annotations.h"

__global__ void upsweep(float *data, unsigned n) {
  __requires(n >= 2 && n <= 512 && (n & (n - 1)) == 0);
  __shared__ float temp[512];
  unsigned tid = threadIdx.x;
  temp[2 * tid] = data[blockIdx.x * 512 + 2 * tid];
  temp[2 * tid + 1] = data[blockIdx.x * 512 + 2 * tid + 1];
  unsigned offset = 1;
  for (unsigned d = n >> 1; d > 0; d >>= 1) {
    __invariant(offset < n / 2);
    __syncthreads();
    if (tid < d)
      temp[offset * (2 * tid + 2) - 1] += temp[offset * (2 * tid + 1) - 1];
    offset *= 2;
  }
  __syncthreads();
  data[blockIdx.x * 512 + 2 * tid] = temp[2 * tid];
  data[blockIdx.x * 512 + 2 * tid + 1] = temp[2 * tid + 1];
}
