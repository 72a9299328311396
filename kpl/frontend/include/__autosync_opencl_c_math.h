/* AutoSync's OpenCL C prelude, part: the math and common functions (written for AutoSync),
 * for float, double and the float vectors.  Bodiless: each is a pure function of its
 * arguments (an uninterpreted function to the oracles). */
#pragma once
#define __AS_OL __attribute__((overloadable))
/* decl(T, S, I, name) once per float type T (element S, the int vector I of its width) */
#define __AS_CLF(decl, name) decl(float, float, int, name) decl(float2, float, int2, name) \
  decl(float3, float, int3, name) decl(float4, float, int4, name) decl(float8, float, int8, name) \
  decl(float16, float, int16, name) decl(double, double, int, name) \
  decl(double2, double, int2, name) decl(double4, double, int4, name)
/* decl(T, S, name) once per integer type T (element S) */
#define __AS_CLIN(decl, name) decl(int, int, name) decl(uint, uint, name) decl(long, long, name) \
  decl(ulong, ulong, name) decl(int2, int, name) decl(int3, int, name) decl(int4, int, name) \
  decl(int8, int, name) decl(int16, int, name) decl(uint2, uint, name) decl(uint3, uint, name) \
  decl(uint4, uint, name) decl(uint8, uint, name) decl(uint16, uint, name)
#define __AS_F1(T, S, I, name) T __AS_OL name(T);
#define __AS_F2(T, S, I, name) T __AS_OL name(T, T);
#define __AS_F3(T, S, I, name) T __AS_OL name(T, T, T);
/* a vector with a scalar second argument (fmin(float4, float)); scalars have it already */
#define __AS_F2S(T, S, I, name) __AS_F2S_##T(T, S, name)
#define __AS_F2S_V(T, S, name) T __AS_OL name(T, S);
#define __AS_F2S_float(T, S, name)
#define __AS_F2S_double(T, S, name)
#define __AS_F2S_float2 __AS_F2S_V
#define __AS_F2S_float3 __AS_F2S_V
#define __AS_F2S_float4 __AS_F2S_V
#define __AS_F2S_float8 __AS_F2S_V
#define __AS_F2S_float16 __AS_F2S_V
#define __AS_F2S_double2 __AS_F2S_V
#define __AS_F2S_double4 __AS_F2S_V
#define __AS_FI(T, S, I, name) T __AS_OL name(T, I);
#define __AS_I2(T, S, name) T __AS_OL name(T, T);
#define __AS_I3(T, S, name) T __AS_OL name(T, T, T);
/* select(a, b, c): c's element is an integer of the element's width */
#define __AS_SEL(T, C) T __AS_OL select(T, T, C);
/* shuffle(x, mask) / shuffle2(x, y, mask): N picks from the M (2M) elements */
#define __AS_SHUF(E, U, M, N) E##N __AS_OL shuffle(E##M, U##N); E##N __AS_OL shuffle2(E##M, E##M, U##N);
#define __AS_SHUFM(E, U, M) __AS_SHUF(E, U, M, 2) __AS_SHUF(E, U, M, 4) __AS_SHUF(E, U, M, 8) __AS_SHUF(E, U, M, 16)
#define __AS_SHUFE(E, U) __AS_SHUFM(E, U, 2) __AS_SHUFM(E, U, 4) __AS_SHUFM(E, U, 8) __AS_SHUFM(E, U, 16)
#define __AS_I2S(T, S, name) __AS_I2S_##T(T, S, name)
#define __AS_I2S_V(T, S, name) T __AS_OL name(T, S);
#define __AS_I2S_int(T, S, name)
#define __AS_I2S_uint(T, S, name)
#define __AS_I2S_long(T, S, name)
#define __AS_I2S_ulong(T, S, name)
#define __AS_I2S_int2 __AS_I2S_V
#define __AS_I2S_int3 __AS_I2S_V
#define __AS_I2S_int4 __AS_I2S_V
#define __AS_I2S_int8 __AS_I2S_V
#define __AS_I2S_int16 __AS_I2S_V
#define __AS_I2S_uint2 __AS_I2S_V
#define __AS_I2S_uint3 __AS_I2S_V
#define __AS_I2S_uint4 __AS_I2S_V
#define __AS_I2S_uint8 __AS_I2S_V
#define __AS_I2S_uint16 __AS_I2S_V
#define __AS_CLM1(name) __AS_CLF(__AS_F1, name)
#define __AS_CLM2(name) __AS_CLF(__AS_F2, name)
#define __AS_CLM2S(name) __AS_CLF(__AS_F2, name) __AS_CLF(__AS_F2S, name)
#define __AS_CLM3(name) __AS_CLF(__AS_F3, name)
#define __AS_CLMI(name) __AS_CLF(__AS_FI, name)
#define __AS_CLI2(name) __AS_CLIN(__AS_I2, name)
__AS_CLM1(sqrt) __AS_CLM1(rsqrt) __AS_CLM1(cbrt) __AS_CLM1(exp) __AS_CLM1(exp2) __AS_CLM1(exp10)
__AS_CLM1(expm1) __AS_CLM1(log) __AS_CLM1(log2) __AS_CLM1(log10) __AS_CLM1(log1p) __AS_CLM1(logb)
__AS_CLM1(sin) __AS_CLM1(cos) __AS_CLM1(tan) __AS_CLM1(sinpi) __AS_CLM1(cospi) __AS_CLM1(tanpi)
__AS_CLM1(fabs) __AS_CLM1(floor) __AS_CLM1(ceil) __AS_CLM1(round) __AS_CLM1(trunc) __AS_CLM1(rint)
__AS_CLM1(asin) __AS_CLM1(acos) __AS_CLM1(atan) __AS_CLM1(tanh) __AS_CLM1(sinh) __AS_CLM1(cosh)
__AS_CLM1(asinh) __AS_CLM1(acosh) __AS_CLM1(atanh) __AS_CLM1(erf) __AS_CLM1(erfc)
__AS_CLM1(tgamma) __AS_CLM1(lgamma) __AS_CLM1(degrees) __AS_CLM1(radians) __AS_CLM1(sign)
__AS_CLM1(native_sqrt) __AS_CLM1(native_exp) __AS_CLM1(native_exp2) __AS_CLM1(native_exp10)
__AS_CLM1(native_log) __AS_CLM1(native_log2) __AS_CLM1(native_log10) __AS_CLM1(native_sin)
__AS_CLM1(native_cos) __AS_CLM1(native_tan) __AS_CLM1(native_recip) __AS_CLM1(native_rsqrt)
__AS_CLM1(half_sqrt) __AS_CLM1(half_exp) __AS_CLM1(half_exp2) __AS_CLM1(half_exp10)
__AS_CLM1(half_log) __AS_CLM1(half_log2) __AS_CLM1(half_log10) __AS_CLM1(half_sin)
__AS_CLM1(half_cos) __AS_CLM1(half_tan) __AS_CLM1(half_recip) __AS_CLM1(half_rsqrt)
__AS_CLM2(pow) __AS_CLM2(fmod) __AS_CLM2(remainder) __AS_CLM2(atan2) __AS_CLM2(hypot)
__AS_CLM2(fdim) __AS_CLM2(nextafter) __AS_CLM2(native_divide) __AS_CLM2(native_powr)
__AS_CLM2(half_divide) __AS_CLM2(half_powr) __AS_CLM2(powr) __AS_CLM2(step) __AS_CLM2(copysign)
__AS_CLM2(maxmag) __AS_CLM2(minmag)
__AS_CLM2S(fmin) __AS_CLM2S(fmax)
__AS_CLMI(pown) __AS_CLMI(rootn) __AS_CLMI(ldexp)
__AS_CLM3(mad) __AS_CLM3(fma) __AS_CLM3(mix) __AS_CLM3(clamp) __AS_CLM3(smoothstep)
__AS_CLI2(min) __AS_CLI2(max) __AS_CLM2S(min) __AS_CLM2S(max) __AS_CLI2(mul24) __AS_CLI2(mul_hi) __AS_CLI2(rotate) __AS_CLI2(add_sat) __AS_CLI2(sub_sat)
__AS_CLIN(__AS_I3, clamp)
__AS_CLIN(__AS_I2S, min) __AS_CLIN(__AS_I2S, max)
__AS_SEL(int2, int2) __AS_SEL(int3, int3) __AS_SEL(int4, int4) __AS_SEL(int8, int8) __AS_SEL(int16, int16)
__AS_SEL(uint2, int2) __AS_SEL(uint3, int3) __AS_SEL(uint4, int4) __AS_SEL(uint8, int8) __AS_SEL(uint16, int16)
__AS_SEL(float2, int2) __AS_SEL(float3, int3) __AS_SEL(float4, int4) __AS_SEL(float8, int8) __AS_SEL(float16, int16)
__AS_SEL(uint2, uint2) __AS_SEL(uint4, uint4) __AS_SEL(float2, uint2) __AS_SEL(float4, uint4)
__AS_SEL(uint, uint) __AS_SEL(float, uint) __AS_SEL(double, long)
__AS_SHUFE(int, uint) __AS_SHUFE(uint, uint) __AS_SHUFE(float, uint)
float __attribute__((overloadable)) dot(float3, float3);
float __attribute__((overloadable)) length(float3);
float __attribute__((overloadable)) distance(float4, float4);
float4 __attribute__((overloadable)) normalize(float4);
float4 __attribute__((overloadable)) cross(float4, float4);
float3 __attribute__((overloadable)) cross(float3, float3);
/* sincos(x, c): the sine, and the cosine stored through c (a body: inlined) */
#define __AS_SINCOS(T, SPACE) \
  T __attribute__((overloadable)) sincos(T x, SPACE T *c) { *c = cos(x); return sin(x); }
#define __AS_SINCOS3(T) __AS_SINCOS(T, __global) __AS_SINCOS(T, __local) __AS_SINCOS(T, __private)
__AS_SINCOS3(float) __AS_SINCOS3(float2) __AS_SINCOS3(float4) __AS_SINCOS3(double)
#undef __AS_SINCOS3
#undef __AS_SINCOS
int __attribute__((overloadable)) mad24(int, int, int);
uint __attribute__((overloadable)) mad24(uint, uint, uint);
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
#undef __AS_CLM2S
#undef __AS_CLMI
#undef __AS_CLM2
#undef __AS_CLM3
#undef __AS_CLI2
