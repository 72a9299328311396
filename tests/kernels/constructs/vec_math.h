/* Small float3 operator header for the construct kernels, in the style of the
 * helper_math.h that CUDA samples ship (written here, not copied): real kernels include
 * such a header from their own folder with a quoted #include. */
#ifndef CONSTRUCTS_VEC_MATH_H
#define CONSTRUCTS_VEC_MATH_H

#include "cuda_runtime.h"

inline __host__ __device__ float3 operator+(float3 a, float3 b) {
  return make_float3(a.x + b.x, a.y + b.y, a.z + b.z);
}
inline __host__ __device__ float3 operator-(float3 a, float3 b) {
  return make_float3(a.x - b.x, a.y - b.y, a.z - b.z);
}
inline __host__ __device__ float3 operator*(float3 a, float s) {
  return make_float3(a.x * s, a.y * s, a.z * s);
}
inline __host__ __device__ float dot(float3 a, float3 b) {
  return a.x * b.x + a.y * b.y + a.z * b.z;
}

#endif
