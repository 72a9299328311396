//pass
//--blockDim=256 --gridDim=16
// Vectorised reverse-and-shade of 1024 floats per block: reinterpret_cast<float4 *> for
// 16-byte loads and stores, constructor-style initialisation `float3 L(a - b)`,
// function-style casts uint(x) / T(4.0) / float(k) and static_cast<int>.  Thread j stores
// the float4 covering s[4j .. 4j+3]; after the barrier it reads scalar s[1023 - 4j], which
// lies in the float4 of thread 255 - j.  Race-free.

#include "vec_math.h"

template <class T> __device__ T quarter(T v) { return v / T(4.0); }

__global__ void reverse_shade(const float *in, float *out, float3 light, float3 eye, float k) {
  __shared__ float s[1024];
  const float4 *in4 = reinterpret_cast<const float4 *>(in) + blockIdx.x * 256;
  float4 *s4 = reinterpret_cast<float4 *>(s);
  int j = static_cast<int>(threadIdx.x);
  s4[j] = in4[j];
  __syncthreads();
  float3 L(light - eye);
  uint r = uint(1023 - 4 * j);
  float shade = quarter(dot(L, L)) * float(k);
  out[blockIdx.x * 1024 + 4 * j] = s[r] * shade;
}
