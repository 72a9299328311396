//xfail:NOT_ALL_VERIFIED
//--blockDim=256 --gridDim=16
// autosync: races=20-20 nvcc_needs=curand_kernel.h
// 09_curand_ok.cu with ONE shared generator state for the whole block: thread 0
// initialises it, but then every thread calls curand_uniform(&state), which reads AND
// writes the state -- a write-write (and read-write) race between any two threads on the
// curand_uniform line.  Missed if curand calls are modelled as pure functions.

#include <curand_kernel.h>

__global__ void pi_hits(curandState *states, unsigned long long seed, unsigned *hits) {
  __shared__ unsigned s[256];
  __shared__ curandState state;
  unsigned tid = threadIdx.x;
  if (tid == 0)
    curand_init(seed, blockIdx.x, 0, &state);
  __syncthreads();
  unsigned count = 0;
  for (int i = 0; i < 64; ++i) {
    float x = curand_uniform(&state);  // R1
    float y = x * 0.5f + 0.25f;
    if (x * x + y * y <= 1.0f)
      ++count;
  }
  s[tid] = count;
  __syncthreads();
  for (unsigned half = 128; half > 0; half >>= 1) {
    if (tid < half)
      s[tid] += s[tid + half];
    __syncthreads();
  }
  if (tid == 0) {
    hits[blockIdx.x] = s[0];
    states[blockIdx.x] = state;
  }
}
