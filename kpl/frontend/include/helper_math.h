/* AutoSync's helper_math.h (written for AutoSync; used only when the kernel's folder and the
 * -I folders have no helper_math.h of their own): the vector operators and helpers of the
 * CUDA samples' header of that name, WITH bodies, so that they are inlined like user code. */
#pragma once
#include <math.h>

#define __AS_HM __host__ __device__ inline
#define __AS_OP2(V, S, OP) \
  __AS_HM V##2 operator OP(V##2 a, V##2 b) { return make_##V##2(a.x OP b.x, a.y OP b.y); } \
  __AS_HM V##2 operator OP(V##2 a, S b) { return make_##V##2(a.x OP b, a.y OP b); } \
  __AS_HM V##2 operator OP(S a, V##2 b) { return make_##V##2(a OP b.x, a OP b.y); } \
  __AS_HM void operator OP##=(V##2 &a, V##2 b) { a.x OP##= b.x; a.y OP##= b.y; } \
  __AS_HM void operator OP##=(V##2 &a, S b) { a.x OP##= b; a.y OP##= b; }
#define __AS_OP3(V, S, OP) \
  __AS_HM V##3 operator OP(V##3 a, V##3 b) { return make_##V##3(a.x OP b.x, a.y OP b.y, a.z OP b.z); } \
  __AS_HM V##3 operator OP(V##3 a, S b) { return make_##V##3(a.x OP b, a.y OP b, a.z OP b); } \
  __AS_HM V##3 operator OP(S a, V##3 b) { return make_##V##3(a OP b.x, a OP b.y, a OP b.z); } \
  __AS_HM void operator OP##=(V##3 &a, V##3 b) { a.x OP##= b.x; a.y OP##= b.y; a.z OP##= b.z; } \
  __AS_HM void operator OP##=(V##3 &a, S b) { a.x OP##= b; a.y OP##= b; a.z OP##= b; }
#define __AS_OP4(V, S, OP) \
  __AS_HM V##4 operator OP(V##4 a, V##4 b) { return make_##V##4(a.x OP b.x, a.y OP b.y, a.z OP b.z, a.w OP b.w); } \
  __AS_HM V##4 operator OP(V##4 a, S b) { return make_##V##4(a.x OP b, a.y OP b, a.z OP b, a.w OP b); } \
  __AS_HM V##4 operator OP(S a, V##4 b) { return make_##V##4(a OP b.x, a OP b.y, a OP b.z, a OP b.w); } \
  __AS_HM void operator OP##=(V##4 &a, V##4 b) { a.x OP##= b.x; a.y OP##= b.y; a.z OP##= b.z; a.w OP##= b.w; } \
  __AS_HM void operator OP##=(V##4 &a, S b) { a.x OP##= b; a.y OP##= b; a.z OP##= b; a.w OP##= b; }
#define __AS_OPS(V, S) \
  __AS_OP2(V, S, +) __AS_OP2(V, S, -) __AS_OP2(V, S, *) __AS_OP2(V, S, /) \
  __AS_OP3(V, S, +) __AS_OP3(V, S, -) __AS_OP3(V, S, *) __AS_OP3(V, S, /) \
  __AS_OP4(V, S, +) __AS_OP4(V, S, -) __AS_OP4(V, S, *) __AS_OP4(V, S, /) \
  __AS_HM V##2 make_##V##2(S s) { return make_##V##2(s, s); } \
  __AS_HM V##3 make_##V##3(S s) { return make_##V##3(s, s, s); } \
  __AS_HM V##4 make_##V##4(S s) { return make_##V##4(s, s, s, s); } \
  __AS_HM V##3 make_##V##3(V##4 a) { return make_##V##3(a.x, a.y, a.z); } \
  __AS_HM V##3 make_##V##3(V##2 a, S z) { return make_##V##3(a.x, a.y, z); } \
  __AS_HM V##4 make_##V##4(V##3 a, S w) { return make_##V##4(a.x, a.y, a.z, w); } \
  __AS_HM V##4 make_##V##4(V##3 a) { return make_##V##4(a.x, a.y, a.z, 0); } \
  __AS_HM S dot(V##2 a, V##2 b) { return a.x * b.x + a.y * b.y; } \
  __AS_HM S dot(V##3 a, V##3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; } \
  __AS_HM S dot(V##4 a, V##4 b) { return a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w; }
__AS_OPS(float, float)
__AS_OPS(int, int)
__AS_OPS(uint, unsigned int)
#undef __AS_OPS
#undef __AS_OP2
#undef __AS_OP3
#undef __AS_OP4

__AS_HM float2 operator-(float2 a) { return make_float2(-a.x, -a.y); }
__AS_HM float3 operator-(float3 a) { return make_float3(-a.x, -a.y, -a.z); }
__AS_HM float4 operator-(float4 a) { return make_float4(-a.x, -a.y, -a.z, -a.w); }
__AS_HM int2 operator-(int2 a) { return make_int2(-a.x, -a.y); }
__AS_HM int3 operator-(int3 a) { return make_int3(-a.x, -a.y, -a.z); }
__AS_HM int4 operator-(int4 a) { return make_int4(-a.x, -a.y, -a.z, -a.w); }
__AS_HM float2 make_float2(int2 a) { return make_float2((float)a.x, (float)a.y); }
__AS_HM float3 make_float3(int3 a) { return make_float3((float)a.x, (float)a.y, (float)a.z); }
__AS_HM float4 make_float4(int4 a) { return make_float4((float)a.x, (float)a.y, (float)a.z, (float)a.w); }
__AS_HM int2 make_int2(float2 a) { return make_int2((int)a.x, (int)a.y); }
__AS_HM int3 make_int3(float3 a) { return make_int3((int)a.x, (int)a.y, (int)a.z); }

__AS_HM float lerp(float a, float b, float t) { return a + t * (b - a); }
__AS_HM float2 lerp(float2 a, float2 b, float t) { return a + t * (b - a); }
__AS_HM float3 lerp(float3 a, float3 b, float t) { return a + t * (b - a); }
__AS_HM float4 lerp(float4 a, float4 b, float t) { return a + t * (b - a); }
__AS_HM float clamp(float f, float a, float b) { return fmaxf(a, fminf(f, b)); }
__AS_HM int clamp(int f, int a, int b) { return max(a, min(f, b)); }
__AS_HM unsigned int clamp(unsigned int f, unsigned int a, unsigned int b) { return max(a, min(f, b)); }
__AS_HM float2 clamp(float2 v, float a, float b) { return make_float2(clamp(v.x, a, b), clamp(v.y, a, b)); }
__AS_HM float3 clamp(float3 v, float a, float b) { return make_float3(clamp(v.x, a, b), clamp(v.y, a, b), clamp(v.z, a, b)); }
__AS_HM float4 clamp(float4 v, float a, float b) { return make_float4(clamp(v.x, a, b), clamp(v.y, a, b), clamp(v.z, a, b), clamp(v.w, a, b)); }
__AS_HM float length(float2 v) { return sqrtf(dot(v, v)); }
__AS_HM float length(float3 v) { return sqrtf(dot(v, v)); }
__AS_HM float length(float4 v) { return sqrtf(dot(v, v)); }
__AS_HM float2 normalize(float2 v) { return v * rsqrtf(dot(v, v)); }
__AS_HM float3 normalize(float3 v) { return v * rsqrtf(dot(v, v)); }
__AS_HM float4 normalize(float4 v) { return v * rsqrtf(dot(v, v)); }
__AS_HM float3 cross(float3 a, float3 b) { return make_float3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x); }
__AS_HM float3 reflect(float3 i, float3 n) { return i - 2.0f * n * dot(n, i); }
__AS_HM float2 fminf(float2 a, float2 b) { return make_float2(fminf(a.x, b.x), fminf(a.y, b.y)); }
__AS_HM float3 fminf(float3 a, float3 b) { return make_float3(fminf(a.x, b.x), fminf(a.y, b.y), fminf(a.z, b.z)); }
__AS_HM float4 fminf(float4 a, float4 b) { return make_float4(fminf(a.x, b.x), fminf(a.y, b.y), fminf(a.z, b.z), fminf(a.w, b.w)); }
__AS_HM float2 fmaxf(float2 a, float2 b) { return make_float2(fmaxf(a.x, b.x), fmaxf(a.y, b.y)); }
__AS_HM float3 fmaxf(float3 a, float3 b) { return make_float3(fmaxf(a.x, b.x), fmaxf(a.y, b.y), fmaxf(a.z, b.z)); }
__AS_HM float4 fmaxf(float4 a, float4 b) { return make_float4(fmaxf(a.x, b.x), fmaxf(a.y, b.y), fmaxf(a.z, b.z), fmaxf(a.w, b.w)); }
__AS_HM float3 fabs(float3 v) { return make_float3(fabsf(v.x), fabsf(v.y), fabsf(v.z)); }
__AS_HM float4 fabs(float4 v) { return make_float4(fabsf(v.x), fabsf(v.y), fabsf(v.z), fabsf(v.w)); }
__AS_HM float smoothstep(float a, float b, float x) {
  float y = clamp((x - a) / (b - a), 0.0f, 1.0f);
  return y * y * (3.0f - 2.0f * y);
}
#undef __AS_HM
