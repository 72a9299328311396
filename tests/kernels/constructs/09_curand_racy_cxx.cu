//xfail:NOT_ALL_VERIFIED
//--blockDim=128 --gridDim=2
// autosync: races=14-14 nvcc_needs=curand_kernel.h
// 09_curand_ok_cxx.cu with two threads per state (st[tid / 2]): curand reads and writes
// the state, so threads 2k and 2k + 1 race on line 14.  Missed if a draw is pure.

#include <curand_kernel.h>

__global__ void draw(unsigned *out, unsigned long long seed) {
  __shared__ curandStatePhilox4_32_10_t st[64];
  unsigned tid = threadIdx.x;
  if (tid < 64) curand_init(seed, tid, 0, &st[tid]);
  __syncthreads();
  unsigned r = curand(&st[tid / 2]);
  out[blockIdx.x * 128 + tid] = r;
}
