/* AutoSync's declarations of the curand device API (written for AutoSync from the public API,
 * not taken from CUDA).  The generator states are structs of a few words; every function is
 * declared WITHOUT a body and modelled by the translator (kpl/frontend/library.py): curand_init
 * writes the state, every draw reads the state and writes it back advanced, and returns a
 * value the verifier knows nothing about.  So threads sharing one state race on it. */
#pragma once

/* the states' words, without the real layouts' arrays (the model reads and writes a state whole) */
struct curandStateXORWOW { unsigned int d, v0, v1, v2, v3, v4; };
typedef struct curandStateXORWOW curandStateXORWOW_t;
typedef struct curandStateXORWOW curandState_t;
typedef struct curandStateXORWOW curandState;
struct curandStatePhilox4_32_10 { unsigned int c0, c1, c2, c3, o0, o1, o2, o3, k0, k1; };
typedef struct curandStatePhilox4_32_10 curandStatePhilox4_32_10_t;
struct curandStateMRG32k3a { double s10, s11, s12, s20, s21, s22; };
typedef struct curandStateMRG32k3a curandStateMRG32k3a_t;
/* MTGP32: one state serves the threads of a block (up to 256), each through its own word */
struct curandStateMtgp32 { unsigned int __word[256]; unsigned int pos, seed; };
typedef struct curandStateMtgp32 curandStateMtgp32_t;
struct curandStateSobol32 { unsigned int i, x, c, d; };
typedef struct curandStateSobol32 curandStateSobol32_t;

#define __AS_CURAND(S)                                                                   \
  __device__ void curand_init(unsigned long long seed, unsigned long long subsequence,   \
                              unsigned long long offset, S *state);                     \
  __device__ unsigned int curand(S *state);                                               \
  __device__ float curand_uniform(S *state);                                              \
  __device__ double curand_uniform_double(S *state);                                      \
  __device__ float curand_normal(S *state);                                               \
  __device__ double curand_normal_double(S *state);                                       \
  __device__ float2 curand_normal2(S *state);                                             \
  __device__ double2 curand_normal2_double(S *state);                                     \
  __device__ float curand_log_normal(S *state, float mean, float stddev);                 \
  __device__ double curand_log_normal_double(S *state, double mean, double stddev);       \
  __device__ float2 curand_log_normal2(S *state, float mean, float stddev);               \
  __device__ unsigned int curand_poisson(S *state, double lambda);
__AS_CURAND(curandStateXORWOW_t)
__AS_CURAND(curandStatePhilox4_32_10_t)
__AS_CURAND(curandStateMRG32k3a_t)
#undef __AS_CURAND
__device__ uint4 curand4(curandStatePhilox4_32_10_t *state);
__device__ float4 curand_uniform4(curandStatePhilox4_32_10_t *state);
__device__ float4 curand_normal4(curandStatePhilox4_32_10_t *state);
__device__ double2 curand_uniform2_double(curandStatePhilox4_32_10_t *state);
__device__ float4 curand_log_normal4(curandStatePhilox4_32_10_t *state, float mean, float stddev);
__device__ uint4 curand_poisson4(curandStatePhilox4_32_10_t *state, double lambda);
__device__ unsigned int curand(curandStateMtgp32_t *state);
__device__ float curand_uniform(curandStateMtgp32_t *state);
__device__ float curand_normal(curandStateMtgp32_t *state);
__device__ double curand_uniform_double(curandStateMtgp32_t *state);
__device__ double curand_normal_double(curandStateMtgp32_t *state);
__device__ void curand_init(unsigned int seed, unsigned int subsequence, unsigned int offset,
                            curandStateSobol32_t *state);
__device__ unsigned int curand(curandStateSobol32_t *state);
__device__ float curand_uniform(curandStateSobol32_t *state);
__device__ float curand_normal(curandStateSobol32_t *state);
