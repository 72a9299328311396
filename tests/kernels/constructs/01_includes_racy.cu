//xfail:NOT_ALL_VERIFIED
//--blockDim=256 --gridDim=16
// autosync: races=21-22
// 01_includes_ok.cu without the barrier: thread t reads pts[t + 1] (line R1 read) while
// thread t + 1 may still be writing it (line R1 write).

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
  pts[tid] = make_float3(r * cosf(a), r * sinf(a), 0.0f);  // R1
  float3 d = pts[(tid + 1) % 256] - pts[tid];  // R1
  len[gid] = sqrtf(dot(d, d));
}
