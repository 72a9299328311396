/* AutoSync's OpenCL C prelude, part: the math and common functions (written for AutoSync),
 * for float, double and the float vectors.  Bodiless: each is a pure function of its
 * arguments (an uninterpreted function to the oracles). */
#pragma once
#define __AS_CLM1(name) \
  float __attribute__((overloadable)) name(float); double __attribute__((overloadable)) name(double); \
  float2 __attribute__((overloadable)) name(float2); float4 __attribute__((overloadable)) name(float4);
#define __AS_CLM2(name) \
  float __attribute__((overloadable)) name(float, float); \
  double __attribute__((overloadable)) name(double, double); \
  float2 __attribute__((overloadable)) name(float2, float2); \
  float4 __attribute__((overloadable)) name(float4, float4);
#define __AS_CLM3(name) \
  float __attribute__((overloadable)) name(float, float, float); \
  double __attribute__((overloadable)) name(double, double, double); \
  float4 __attribute__((overloadable)) name(float4, float4, float4);
#define __AS_CLI2(name) \
  int __attribute__((overloadable)) name(int, int); uint __attribute__((overloadable)) name(uint, uint); \
  long __attribute__((overloadable)) name(long, long); ulong __attribute__((overloadable)) name(ulong, ulong);
__AS_CLM1(sqrt) __AS_CLM1(rsqrt) __AS_CLM1(exp) __AS_CLM1(exp2) __AS_CLM1(log) __AS_CLM1(log2)
__AS_CLM1(log10) __AS_CLM1(sin) __AS_CLM1(cos) __AS_CLM1(tan) __AS_CLM1(fabs) __AS_CLM1(floor)
__AS_CLM1(ceil) __AS_CLM1(round) __AS_CLM1(trunc) __AS_CLM1(native_sqrt) __AS_CLM1(native_exp)
__AS_CLM1(native_log) __AS_CLM1(native_sin) __AS_CLM1(native_cos) __AS_CLM1(native_recip)
__AS_CLM1(native_rsqrt) __AS_CLM1(half_sqrt) __AS_CLM1(half_exp) __AS_CLM1(asin) __AS_CLM1(acos)
__AS_CLM1(atan) __AS_CLM1(tanh) __AS_CLM1(sinh) __AS_CLM1(cosh)
__AS_CLM2(pow) __AS_CLM2(fmin) __AS_CLM2(fmax) __AS_CLM2(fmod) __AS_CLM2(atan2) __AS_CLM2(hypot)
__AS_CLM2(native_divide) __AS_CLM2(native_powr) __AS_CLM2(powr) __AS_CLM2(step) __AS_CLM2(copysign)
__AS_CLM3(mad) __AS_CLM3(fma) __AS_CLM3(mix) __AS_CLM3(clamp) __AS_CLM3(smoothstep)
__AS_CLI2(min) __AS_CLI2(max) __AS_CLI2(mul24) __AS_CLI2(mul_hi) __AS_CLI2(rotate) __AS_CLI2(add_sat) __AS_CLI2(sub_sat)
float __attribute__((overloadable)) min(float, float);
float __attribute__((overloadable)) max(float, float);
double __attribute__((overloadable)) min(double, double);
double __attribute__((overloadable)) max(double, double);
int __attribute__((overloadable)) mad24(int, int, int);
uint __attribute__((overloadable)) mad24(uint, uint, uint);
int __attribute__((overloadable)) clamp(int, int, int);
uint __attribute__((overloadable)) clamp(uint, uint, uint);
uint __attribute__((overloadable)) abs(int);
uint __attribute__((overloadable)) abs(uint);
int __attribute__((overloadable)) select(int, int, int);
float __attribute__((overloadable)) select(float, float, int);
float __attribute__((overloadable)) dot(float2, float2);
float __attribute__((overloadable)) dot(float4, float4);
float __attribute__((overloadable)) dot(float, float);
float __attribute__((overloadable)) length(float2);
float __attribute__((overloadable)) length(float4);
uint __attribute__((overloadable)) popcount(uint);
uint __attribute__((overloadable)) clz(uint);
int __attribute__((overloadable)) isnan(float);
int __attribute__((overloadable)) isinf(float);
float __attribute__((overloadable)) as_float(int);
float __attribute__((overloadable)) as_float(uint);
int __attribute__((overloadable)) as_int(float);
uint __attribute__((overloadable)) as_uint(float);
int __attribute__((overloadable)) convert_int(float);
uint __attribute__((overloadable)) convert_uint(float);
float __attribute__((overloadable)) convert_float(int);
float __attribute__((overloadable)) convert_float(uint);
#undef __AS_CLM1
#undef __AS_CLM2
#undef __AS_CLM3
#undef __AS_CLI2
