//pass
//--blockDim=256 --gridDim=16
// Quoted includes of the CUDA headers (real code writes "cuda.h", not <cuda.h>), <cstdio>,
// <stdint.h>, math_constants.h and a helper_math-style header from the kernel's folder.
// Each thread converts one polar sample to a point, stages it in shared memory and, after
// the barrier, reads its neighbour's point: every shared cell has one writer, and the
// barrier orders the write before the other thread's read.  Race-free.

#include "cuda.h"
#include "cuda_runtime.h"
#include "device_launch_parameters.h"
#include <cstdio>
#include <stdint.h>
#include "math_constants.h"
#include "vec_math.h"

__global__ void segment_lengths(const float *angle, const uint32_t *radius, float *len) {
  __shared__ float3 pts[256];
  uint32_t tid = threadIdx.x;
  uint32_t gid = blockIdx.x * blockDim.x + tid;
  float a = angle[gid] * CUDART_PI_F / 180.0f;
  float r = (float)radius[gid];
  pts[tid] = make_float3(r * cosf(a), r * sinf(a), 0.0f);
  __syncthreads();
  float3 d = pts[(tid + 1) % 256] - pts[tid];
  len[gid] = sqrtf(dot(d, d));
}
