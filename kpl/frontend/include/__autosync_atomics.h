/* AutoSync's CUDA prelude, part: atomics (written for AutoSync).
 * Read only by files that name one of the functions it declares (kpl/frontend/clang.py
 * chooses the parts by the identifiers of the kernel's file), so that clang's AST stays small. */
#pragma once
/* ------------------------------------------------------------------ atomics */
#define __AS_ATOMIC_OPS(T)                                                   \
  __device__ T atomicAdd(T *address, T val);                                 \
  __device__ T atomicSub(T *address, T val);                                 \
  __device__ T atomicExch(T *address, T val);                                \
  __device__ T atomicMin(T *address, T val);                                 \
  __device__ T atomicMax(T *address, T val);                                 \
  __device__ T atomicAnd(T *address, T val);                                 \
  __device__ T atomicOr(T *address, T val);                                  \
  __device__ T atomicXor(T *address, T val);                                 \
  __device__ T atomicCAS(T *address, T compare, T val);                      \
  __device__ T atomicAdd_block(T *address, T val);                           \
  __device__ T atomicAdd_system(T *address, T val);                          \
  __device__ T atomicExch_block(T *address, T val);                          \
  __device__ T atomicCAS_block(T *address, T compare, T val);                \
  __device__ T atomicMin_block(T *address, T val);                           \
  __device__ T atomicMax_block(T *address, T val);
__AS_ATOMIC_OPS(int)
__AS_ATOMIC_OPS(unsigned int)
__AS_ATOMIC_OPS(unsigned long long)
__AS_ATOMIC_OPS(long long)
#undef __AS_ATOMIC_OPS
__device__ float atomicAdd(float *address, float val);
__device__ double atomicAdd(double *address, double val);
__device__ float atomicExch(float *address, float val);
__device__ float atomicAdd_block(float *address, float val);
__device__ float atomicMax(float *address, float val);
__device__ float atomicMin(float *address, float val);
__device__ unsigned int atomicInc(unsigned int *address, unsigned int val);
__device__ unsigned int atomicDec(unsigned int *address, unsigned int val);

