/* AutoSync's OpenCL C prelude, part: the atomic functions of OpenCL C 1.1 (``atomic_*``), of
 * its 32-bit extensions (``atom_*``) and the fetch-and-modify functions of OpenCL C 2.0
 * (written for AutoSync).  Each is an atomic read-modify-write of the element its pointer
 * names (kpl/frontend/opencl.py maps it to the atomic model of the CUDA atomics). */
#pragma once
/* one function for a signed type S and its unsigned twin U, in global and local memory, with
 * no, one or two operands beside the pointer */
#define __AS_ARG(...) , __VA_ARGS__
#define __AS_CLATOMIC_T(name, S, U, PS, PU) \
  S __attribute__((overloadable)) name(volatile __global S *p PS); \
  U __attribute__((overloadable)) name(volatile __global U *p PU); \
  S __attribute__((overloadable)) name(volatile __local S *p PS); \
  U __attribute__((overloadable)) name(volatile __local U *p PU);
#define __AS_CLATOMIC1(name) __AS_CLATOMIC_T(name, int, uint, , )
#define __AS_CLATOMIC2(name) __AS_CLATOMIC_T(name, int, uint, __AS_ARG(int v), __AS_ARG(uint v))
#define __AS_CLATOMIC3(name) __AS_CLATOMIC_T(name, int, uint, __AS_ARG(int c, int v), __AS_ARG(uint c, uint v))
__AS_CLATOMIC2(atomic_add)
__AS_CLATOMIC2(atomic_sub)
__AS_CLATOMIC2(atomic_xchg)
__AS_CLATOMIC2(atomic_min)
__AS_CLATOMIC2(atomic_max)
__AS_CLATOMIC2(atomic_and)
__AS_CLATOMIC2(atomic_or)
__AS_CLATOMIC2(atomic_xor)
__AS_CLATOMIC1(atomic_inc)
__AS_CLATOMIC1(atomic_dec)
__AS_CLATOMIC3(atomic_cmpxchg)
/* the 64-bit atom_* of cl_khr_int64_base_atomics / cl_khr_int64_extended_atomics */
#define __AS_CLATOM64_1(name) __AS_CLATOMIC_T(name, long, ulong, , )
#define __AS_CLATOM64_2(name) __AS_CLATOMIC_T(name, long, ulong, __AS_ARG(long v), __AS_ARG(ulong v))
#define __AS_CLATOM64_3(name) \
  __AS_CLATOMIC_T(name, long, ulong, __AS_ARG(long c, long v), __AS_ARG(ulong c, ulong v))
__AS_CLATOM64_2(atom_add) __AS_CLATOM64_2(atom_sub) __AS_CLATOM64_2(atom_xchg)
__AS_CLATOM64_2(atom_min) __AS_CLATOM64_2(atom_max) __AS_CLATOM64_2(atom_and)
__AS_CLATOM64_2(atom_or) __AS_CLATOM64_2(atom_xor) __AS_CLATOM64_1(atom_inc)
__AS_CLATOM64_1(atom_dec) __AS_CLATOM64_3(atom_cmpxchg)
#undef __AS_CLATOM64_1
#undef __AS_CLATOM64_2
#undef __AS_CLATOM64_3
__AS_CLATOMIC2(atom_add)
__AS_CLATOMIC2(atom_sub)
__AS_CLATOMIC2(atom_xchg)
__AS_CLATOMIC2(atom_min)
__AS_CLATOMIC2(atom_max)
__AS_CLATOMIC2(atom_and)
__AS_CLATOMIC2(atom_or)
__AS_CLATOMIC2(atom_xor)
__AS_CLATOMIC1(atom_inc)
__AS_CLATOMIC1(atom_dec)
__AS_CLATOMIC3(atom_cmpxchg)
float __attribute__((overloadable)) atomic_xchg(volatile __global float *p, float v);
float __attribute__((overloadable)) atomic_xchg(volatile __local float *p, float v);
#if __OPENCL_C_VERSION__ >= 200
#define __AS_CLFETCH(name) \
  int __attribute__((overloadable)) name(volatile atomic_int *p, int v); \
  uint __attribute__((overloadable)) name(volatile atomic_uint *p, uint v);
__AS_CLFETCH(atomic_fetch_add)
__AS_CLFETCH(atomic_fetch_sub)
__AS_CLFETCH(atomic_fetch_min)
__AS_CLFETCH(atomic_fetch_max)
__AS_CLFETCH(atomic_fetch_and)
__AS_CLFETCH(atomic_fetch_or)
__AS_CLFETCH(atomic_fetch_xor)
__AS_CLFETCH(atomic_exchange)
#undef __AS_CLFETCH
#endif
#undef __AS_CLATOMIC1
#undef __AS_CLATOMIC_T
#undef __AS_ARG
#undef __AS_CLATOMIC2
#undef __AS_CLATOMIC3
