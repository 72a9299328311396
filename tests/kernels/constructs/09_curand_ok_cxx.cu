//pass
//--blockDim=128 --gridDim=2
// autosync: nvcc_needs=curand_kernel.h
// Philox states in shared memory, one per thread: curand_init and curand(&st[tid]) touch
// only the thread's own state.  Race-free.

#include <curand_kernel.h>

__global__ void draw(unsigned *out, unsigned long long seed) {
  __shared__ curandStatePhilox4_32_10_t st[128];
  unsigned tid = threadIdx.x;
  curand_init(seed, tid, 0, &st[tid]);
  unsigned r = curand(&st[tid]);
  float g = curand_normal(&st[tid]);
  out[blockIdx.x * 128 + tid] = r + (unsigned)g;
}
