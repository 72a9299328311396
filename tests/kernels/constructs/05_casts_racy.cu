//xfail:NOT_ALL_VERIFIED
//--blockDim=256 --gridDim=16
// autosync: races=17-21
// 05_casts_ok.cu without the barrier: thread j reads s[1023 - 4j] (line R1 read) while
// thread 255 - j writes it as part of its float4 store (line R1 write).  Missed if the
// float4 store through the reinterpret_cast pointer is dropped or treated as one float.

#include "vec_math.h"

template <class T> __device__ T quarter(T v) { return v / T(4.0); }

__global__ void reverse_shade(const float *in, float *out, float3 light, float3 eye, float k) {
  __shared__ float s[1024];
  const float4 *in4 = reinterpret_cast<const float4 *>(in) + blockIdx.x * 256;
  float4 *s4 = reinterpret_cast<float4 *>(s);
  int j = static_cast<int>(threadIdx.x);
  s4[j] = in4[j];  // R1
  float3 L(light - eye);
  uint r = uint(1023 - 4 * j);
  float shade = quarter(dot(L, L)) * float(k);
  out[blockIdx.x * 1024 + 4 * j] = s[r] * shade;  // R1
}
