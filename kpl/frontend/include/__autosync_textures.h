/* AutoSync's CUDA prelude, part: texture references and objects (read-only memory) (written for AutoSync).
 * Read only by files that name one of the functions it declares (kpl/frontend/clang.py
 * chooses the parts by the identifiers of the kernel's file), so that clang's AST stays small. */
#pragma once
/* ------------------------------------------------------------------ textures (read-only) */
enum cudaTextureReadMode { cudaReadModeElementType, cudaReadModeNormalizedFloat };
typedef unsigned long long cudaTextureObject_t;
typedef unsigned long long cudaSurfaceObject_t;
template <typename T, int dim = 1, enum cudaTextureReadMode mode = cudaReadModeElementType>
struct __attribute__((device_builtin_texture_type)) texture { int normalized; int filterMode; int addressMode[3]; };
template <typename T> __device__ T tex1Dfetch(texture<T, 1, cudaReadModeElementType> t, int x);
template <typename T> __device__ T tex1D(texture<T, 1, cudaReadModeElementType> t, float x);
template <typename T> __device__ T tex2D(texture<T, 2, cudaReadModeElementType> t, float x, float y);
template <typename T> __device__ T tex3D(texture<T, 3, cudaReadModeElementType> t, float x, float y, float z);
/* a normalized read returns floats: one per component of the texel (uchar4 -> float4) */
template <typename T> struct __as_normalized { typedef float type; };
#define __AS_NORM(N) \
  template <> struct __as_normalized<N##1> { typedef float1 type; }; \
  template <> struct __as_normalized<N##2> { typedef float2 type; }; \
  template <> struct __as_normalized<N##4> { typedef float4 type; };
__AS_NORM(char) __AS_NORM(uchar) __AS_NORM(short) __AS_NORM(ushort)
#undef __AS_NORM
template <typename T> __device__ typename __as_normalized<T>::type
tex1Dfetch(texture<T, 1, cudaReadModeNormalizedFloat> t, int x);
template <typename T> __device__ typename __as_normalized<T>::type
tex1D(texture<T, 1, cudaReadModeNormalizedFloat> t, float x);
template <typename T> __device__ typename __as_normalized<T>::type
tex2D(texture<T, 2, cudaReadModeNormalizedFloat> t, float x, float y);
template <typename T> __device__ typename __as_normalized<T>::type
tex3D(texture<T, 3, cudaReadModeNormalizedFloat> t, float x, float y, float z);
template <typename T> __device__ T tex1Dfetch(cudaTextureObject_t t, int x);
template <typename T> __device__ T tex1D(cudaTextureObject_t t, float x);
template <typename T> __device__ T tex2D(cudaTextureObject_t t, float x, float y);
template <typename T> __device__ T tex3D(cudaTextureObject_t t, float x, float y, float z);

