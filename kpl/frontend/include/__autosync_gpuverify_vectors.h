/* AutoSync: the arithmetic GPUVerify's prelude gives CUDA's vector types (written for AutoSync).
 * GPUVerify reads float3, int4 ... as vectors whose operators act element by element, so a file
 * written for it adds, subtracts, multiplies and divides them, with each other and with a
 * scalar, without defining any operator.  Read only by files with GPUVerify's flags line
 * (kpl/frontend/clang.py, GPUVERIFY_PARTS).  Each operator is a template that deduces nothing:
 * a file's own operator of the same signature (its helper_math.h) is not a template, so C++
 * prefers it and the two never clash. */
#pragma once

#define __AS_GV template <typename __AS_T = void> __host__ __device__ inline
#define __AS_GV_OP(V, S, OP) \
  __AS_GV V##2 operator OP(V##2 a, V##2 b) { return make_##V##2(a.x OP b.x, a.y OP b.y); } \
  __AS_GV V##3 operator OP(V##3 a, V##3 b) { return make_##V##3(a.x OP b.x, a.y OP b.y, a.z OP b.z); } \
  __AS_GV V##4 operator OP(V##4 a, V##4 b) { \
    return make_##V##4(a.x OP b.x, a.y OP b.y, a.z OP b.z, a.w OP b.w); } \
  __AS_GV V##2 operator OP(V##2 a, S s) { return make_##V##2(a.x OP s, a.y OP s); } \
  __AS_GV V##3 operator OP(V##3 a, S s) { return make_##V##3(a.x OP s, a.y OP s, a.z OP s); } \
  __AS_GV V##4 operator OP(V##4 a, S s) { return make_##V##4(a.x OP s, a.y OP s, a.z OP s, a.w OP s); } \
  __AS_GV V##2 operator OP(S s, V##2 b) { return make_##V##2(s OP b.x, s OP b.y); } \
  __AS_GV V##3 operator OP(S s, V##3 b) { return make_##V##3(s OP b.x, s OP b.y, s OP b.z); } \
  __AS_GV V##4 operator OP(S s, V##4 b) { return make_##V##4(s OP b.x, s OP b.y, s OP b.z, s OP b.w); } \
  __AS_GV void operator OP##=(V##2 &a, V##2 b) { a.x OP##= b.x; a.y OP##= b.y; } \
  __AS_GV void operator OP##=(V##3 &a, V##3 b) { a.x OP##= b.x; a.y OP##= b.y; a.z OP##= b.z; } \
  __AS_GV void operator OP##=(V##4 &a, V##4 b) { a.x OP##= b.x; a.y OP##= b.y; a.z OP##= b.z; a.w OP##= b.w; } \
  __AS_GV void operator OP##=(V##2 &a, S s) { a.x OP##= s; a.y OP##= s; } \
  __AS_GV void operator OP##=(V##3 &a, S s) { a.x OP##= s; a.y OP##= s; a.z OP##= s; } \
  __AS_GV void operator OP##=(V##4 &a, S s) { a.x OP##= s; a.y OP##= s; a.z OP##= s; a.w OP##= s; }
#define __AS_GV_VEC(V, S) \
  __AS_GV_OP(V, S, +) __AS_GV_OP(V, S, -) __AS_GV_OP(V, S, *) __AS_GV_OP(V, S, /) \
  __AS_GV V##2 operator-(V##2 a) { return make_##V##2(-a.x, -a.y); } \
  __AS_GV V##3 operator-(V##3 a) { return make_##V##3(-a.x, -a.y, -a.z); } \
  __AS_GV V##4 operator-(V##4 a) { return make_##V##4(-a.x, -a.y, -a.z, -a.w); }
__AS_GV_VEC(float, float)
__AS_GV_VEC(double, double)
__AS_GV_VEC(int, int)
__AS_GV_VEC(uint, unsigned int)
#undef __AS_GV_VEC
#undef __AS_GV_OP
#undef __AS_GV
