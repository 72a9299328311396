/* AutoSync's CUDA prelude, part: the math library, float and double, with the C++ overloads (written for AutoSync).
 * Read only by files that name one of the functions it declares (kpl/frontend/clang.py
 * chooses the parts by the identifiers of the kernel's file), so that clang's AST stays small. */
#pragma once
/* ------------------------------------------------------------------ math (float and double) */
#define __AS_MATH1(F) extern "C" __device__ __host__ double F(double x); \
  extern "C" __device__ __host__ float F##f(float x);
#define __AS_MATH2(F) extern "C" __device__ __host__ double F(double x, double y); \
  extern "C" __device__ __host__ float F##f(float x, float y);
__AS_MATH1(sqrt) __AS_MATH1(rsqrt) __AS_MATH1(cbrt) __AS_MATH1(rcbrt) __AS_MATH1(exp)
__AS_MATH1(exp2) __AS_MATH1(exp10) __AS_MATH1(expm1) __AS_MATH1(log) __AS_MATH1(log2)
__AS_MATH1(log10) __AS_MATH1(log1p) __AS_MATH1(sin) __AS_MATH1(cos) __AS_MATH1(tan)
__AS_MATH1(asin) __AS_MATH1(acos) __AS_MATH1(atan) __AS_MATH1(sinh) __AS_MATH1(cosh)
__AS_MATH1(tanh) __AS_MATH1(asinh) __AS_MATH1(acosh) __AS_MATH1(atanh) __AS_MATH1(sinpi)
__AS_MATH1(cospi) __AS_MATH1(fabs) __AS_MATH1(floor) __AS_MATH1(ceil) __AS_MATH1(trunc)
__AS_MATH1(round) __AS_MATH1(rint) __AS_MATH1(nearbyint) __AS_MATH1(erf) __AS_MATH1(erfc)
__AS_MATH1(erfinv) __AS_MATH1(erfcinv) __AS_MATH1(lgamma) __AS_MATH1(tgamma)
__AS_MATH1(normcdf) __AS_MATH1(normcdfinv) __AS_MATH1(logb) __AS_MATH1(j0) __AS_MATH1(j1)
__AS_MATH1(y0) __AS_MATH1(y1)
__AS_MATH2(pow) __AS_MATH2(atan2) __AS_MATH2(fmod) __AS_MATH2(remainder) __AS_MATH2(fmin)
__AS_MATH2(fmax) __AS_MATH2(fdim) __AS_MATH2(hypot) __AS_MATH2(copysign) __AS_MATH2(nextafter)
#undef __AS_MATH1
#undef __AS_MATH2
extern "C" {
__device__ __host__ double fma(double x, double y, double z);
__device__ __host__ float fmaf(float x, float y, float z);
__device__ __host__ double ldexp(double x, int e);
__device__ __host__ float ldexpf(float x, int e);
__device__ __host__ double scalbn(double x, int e);
__device__ __host__ float scalbnf(float x, int e);
__device__ __host__ long lround(double x);
__device__ __host__ long lroundf(float x);
__device__ __host__ long long llround(double x);
__device__ __host__ long long llroundf(float x);
__device__ __host__ long lrint(double x);
__device__ __host__ long lrintf(float x);
__device__ __host__ int ilogb(double x);
__device__ __host__ int ilogbf(float x);
__device__ __host__ int abs(int x);
__device__ __host__ long labs(long x);
__device__ __host__ long long llabs(long long x);
__device__ __host__ int min(int a, int b);
__device__ __host__ int max(int a, int b);
__device__ __host__ unsigned int umin(unsigned int a, unsigned int b);
__device__ __host__ unsigned int umax(unsigned int a, unsigned int b);
__device__ __host__ long long llmin(long long a, long long b);
__device__ __host__ long long llmax(long long a, long long b);
__device__ __host__ unsigned long long ullmin(unsigned long long a, unsigned long long b);
__device__ __host__ unsigned long long ullmax(unsigned long long a, unsigned long long b);
__device__ __host__ int isnan(double x);
__device__ __host__ int isinf(double x);
__device__ __host__ int isfinite(double x);
__device__ __host__ int signbit(double x);
/* functions that answer through pointers have bodies: their stores are accesses like any
   other (into a local, shared or global array), and the values pure functions of x */
__device__ int __autosync_exponent_of(double x);
__device__ int __autosync_quotient_bits(double x, double y);
__device__ __host__ inline void sincosf(float x, float *s, float *c) { *s = sinf(x); *c = cosf(x); }
__device__ __host__ inline void sincos(double x, double *s, double *c) { *s = sin(x); *c = cos(x); }
__device__ inline void __sincosf(float x, float *s, float *c) { *s = sinf(x); *c = cosf(x); }
__device__ inline void sincospif(float x, float *s, float *c) { *s = sinpif(x); *c = cospif(x); }
__device__ inline void sincospi(double x, double *s, double *c) { *s = sinpi(x); *c = cospi(x); }
__device__ __host__ inline float modff(float x, float *ip) { *ip = truncf(x); return x - truncf(x); }
__device__ __host__ inline double modf(double x, double *ip) { *ip = trunc(x); return x - trunc(x); }
__device__ __host__ inline float frexpf(float x, int *e) {
  *e = __autosync_exponent_of(x);
  return ldexpf(x, -__autosync_exponent_of(x));
}
__device__ __host__ inline double frexp(double x, int *e) {
  *e = __autosync_exponent_of(x);
  return ldexp(x, -__autosync_exponent_of(x));
}
__device__ __host__ inline float remquof(float x, float y, int *q) {
  *q = __autosync_quotient_bits(x, y);
  return remainderf(x, y);
}
__device__ __host__ inline double remquo(double x, double y, int *q) {
  *q = __autosync_quotient_bits(x, y);
  return remainder(x, y);
}
__device__ float __fdividef(float x, float y);
__device__ float __expf(float x);
__device__ float __exp10f(float x);
__device__ float __logf(float x);
__device__ float __log2f(float x);
__device__ float __log10f(float x);
__device__ float __sinf(float x);
__device__ float __cosf(float x);
__device__ float __tanf(float x);
__device__ float __powf(float x, float y);
__device__ float __saturatef(float x);
__device__ float __frsqrt_rn(float x);
__device__ float __fsqrt_rn(float x);
__device__ float __frcp_rn(float x);
__device__ double __drcp_rn(double x);
__device__ float __fadd_rn(float x, float y);
__device__ float __fadd_rz(float x, float y);
__device__ float __fsub_rn(float x, float y);
__device__ float __fmul_rn(float x, float y);
__device__ float __fmul_rz(float x, float y);
__device__ float __fdiv_rn(float x, float y);
__device__ float __fmaf_rn(float x, float y, float z);
__device__ double __dadd_rn(double x, double y);
__device__ double __dmul_rn(double x, double y);
__device__ double __fma_rn(double x, double y, double z);
__device__ int __float2int_rn(float x);
__device__ int __float2int_rz(float x);
__device__ int __float2int_rd(float x);
__device__ int __float2int_ru(float x);
__device__ unsigned int __float2uint_rn(float x);
__device__ unsigned int __float2uint_rz(float x);
__device__ float __int2float_rn(int x);
__device__ float __uint2float_rn(unsigned int x);
__device__ int __double2int_rn(double x);
__device__ int __double2int_rz(double x);
__device__ float __double2float_rn(double x);
__device__ int __double2hiint(double x);
__device__ int __double2loint(double x);
__device__ double __hiloint2double(int hi, int lo);
}
/* the C++ overloads of the float versions, as nvcc's math headers give device code */
#define __AS_OVL1(F) __device__ __host__ inline float F(float x) { return F##f(x); }
#define __AS_OVL2(F) __device__ __host__ inline float F(float x, float y) { return F##f(x, y); }
__AS_OVL1(sqrt) __AS_OVL1(rsqrt) __AS_OVL1(cbrt) __AS_OVL1(exp) __AS_OVL1(exp2) __AS_OVL1(expm1)
__AS_OVL1(log) __AS_OVL1(log2) __AS_OVL1(log10) __AS_OVL1(log1p) __AS_OVL1(sin) __AS_OVL1(cos)
__AS_OVL1(tan) __AS_OVL1(asin) __AS_OVL1(acos) __AS_OVL1(atan) __AS_OVL1(sinh) __AS_OVL1(cosh)
__AS_OVL1(tanh) __AS_OVL1(fabs) __AS_OVL1(floor) __AS_OVL1(ceil) __AS_OVL1(trunc) __AS_OVL1(round)
__AS_OVL1(rint) __AS_OVL1(erf) __AS_OVL1(erfc) __AS_OVL1(lgamma) __AS_OVL1(tgamma)
__AS_OVL2(pow) __AS_OVL2(atan2) __AS_OVL2(fmod) __AS_OVL2(fmin) __AS_OVL2(fmax) __AS_OVL2(hypot)
__AS_OVL2(copysign)
#undef __AS_OVL1
#undef __AS_OVL2
__device__ __host__ inline float abs(float x) { return fabsf(x); }
__device__ __host__ inline double abs(double x) { return fabs(x); }
__device__ __host__ inline long long abs(long long x) { return llabs(x); }
__device__ __host__ inline float fma(float x, float y, float z) { return fmaf(x, y, z); }
__device__ __host__ inline float pow(float x, int y) { return powf(x, (float)y); }
__device__ __host__ inline double pow(double x, int y) { return pow(x, (double)y); }
__device__ __host__ inline unsigned int min(unsigned int a, unsigned int b) { return umin(a, b); }
__device__ __host__ inline unsigned int max(unsigned int a, unsigned int b) { return umax(a, b); }
__device__ __host__ inline unsigned int min(int a, unsigned int b) { return umin((unsigned int)a, b); }
__device__ __host__ inline unsigned int max(int a, unsigned int b) { return umax((unsigned int)a, b); }
__device__ __host__ inline unsigned int min(unsigned int a, int b) { return umin(a, (unsigned int)b); }
__device__ __host__ inline unsigned int max(unsigned int a, int b) { return umax(a, (unsigned int)b); }
__device__ __host__ inline long long min(long long a, long long b) { return llmin(a, b); }
__device__ __host__ inline long long max(long long a, long long b) { return llmax(a, b); }
__device__ __host__ inline unsigned long long min(unsigned long long a, unsigned long long b) { return ullmin(a, b); }
__device__ __host__ inline unsigned long long max(unsigned long long a, unsigned long long b) { return ullmax(a, b); }
__device__ __host__ inline float min(float a, float b) { return fminf(a, b); }
__device__ __host__ inline float max(float a, float b) { return fmaxf(a, b); }
__device__ __host__ inline double min(double a, double b) { return fmin(a, b); }
__device__ __host__ inline double max(double a, double b) { return fmax(a, b); }
__device__ __host__ inline double min(float a, double b) { return fmin((double)a, b); }
__device__ __host__ inline double max(float a, double b) { return fmax((double)a, b); }
__device__ __host__ inline double min(double a, float b) { return fmin(a, (double)b); }
__device__ __host__ inline double max(double a, float b) { return fmax(a, (double)b); }

