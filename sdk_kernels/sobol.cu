//pass
//--blockDim=[64,1] --gridDim=[128,10]
// autosync: min_barriers=1 original_barriers=1
// Sobol quasi-random sequence generator: block row y produces dimension y.  The 32
// direction numbers of the dimension are staged in shared memory once, then each thread
// produces a strided subset of the points with the Gray-code recurrence.

#include "annotations.h"

#define k_2powneg32 2.3283064E-10F
#define n_directions 32

__global__ void sobolGPU_kernel(unsigned n_vectors, unsigned n_dimensions, unsigned *d_directions, float *d_output) {
  __requires(n_vectors == 100000);
  __requires(n_dimensions == 10);
  __shared__ unsigned int v[n_directions];

  // move the pointers to this block row's dimension
  d_directions = d_directions + n_directions * blockIdx.y;
  d_output = d_output + n_vectors * blockIdx.y;

  // copy the direction numbers of this dimension into shared memory
  if (threadIdx.x < n_directions) {
    v[threadIdx.x] = d_directions[threadIdx.x];
  }
  __syncthreads();

  // first point handled by this thread and the stride between its points
  int i0 = threadIdx.x + blockIdx.x * blockDim.x;
  int stride = gridDim.x * blockDim.x;

  // the Gray code of i0 gives the first value: g = i0 xor (i0 / 2)
  unsigned int g = i0 ^ (i0 >> 1);
  unsigned int X = 0;
  unsigned int mask;

  // X = xor of v[k] over the set bits k of g
  for (unsigned int k = 0; k < __ffs(stride) - 1; k++) {
    mask = -(g & 1);
    X ^= mask & v[k];
    g = g >> 1;
  }

  if (i0 < n_vectors) {
    d_output[i0] = (float)X * k_2powneg32;
  }

  // now jump by `stride` points at a time: going from point i to i + stride flips the
  // bits of the Gray code that changed, which we fold into a running value v_log2stridem1
  // plus the single direction number of the lowest set bit of i + stride
  unsigned int v_log2stridem1 = v[__ffs(stride) - 2];
  unsigned int v_stridemask = stride - 1;

  for (unsigned int i = i0 + stride; i < n_vectors; i += stride) {
    // x_i = x_{i-stride} ^ v[b] ^ v[log2(stride) - 1], where b is the lowest zero bit of
    // the quotient (i - stride) / stride, found with __ffs on the complement
    X ^= v_log2stridem1 ^ v[__ffs(~((i - stride) | v_stridemask)) - 1];
    d_output[i] = (float)X * k_2powneg32;
  }
}
