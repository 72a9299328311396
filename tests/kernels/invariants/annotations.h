/* GPUVerify-style annotations for our own test kernels.
 *
 * WHY this file exists: the verification front end parses these kernels with __AUTOSYNC__
 * defined (and __CUDACC__, as nvcc's device pass does), so it sees plain declarations of
 * the annotation functions and can
 * treat calls to them as specification statements (__requires = assumption on the
 * parameters, __invariant = loop invariant, ...).  nvcc defines __CUDACC__; for it every
 * annotation expands to a harmless no-op so the same file still compiles.
 */
#ifndef AUTOSYNC_ANNOTATIONS_H
#define AUTOSYNC_ANNOTATIONS_H

#if defined(__CUDACC__) && !defined(__AUTOSYNC__)

#define __requires(...) ((void)0)
#define __ensures(...) ((void)0)
#define __assert(...) ((void)0)
#define __assume(...) ((void)0)
#define __invariant(...) ((void)0)
#define __global_invariant(...) ((void)0)
#define __implies(a, b) (!(a) || (b))
#define __write_implies(p, e) (true)
#define __read_implies(p, e) (true)
#define __write_offset_bytes(p) (0u)
#define __read_offset_bytes(p) (0u)
#define __same_group (true)

/* Legacy texture references were removed from CUDA 12; give nvcc a stand-in so kernels
 * written against the classic `texture<T, 2, cudaReadModeElementType>` API compile. */
#if defined(CUDART_VERSION) && CUDART_VERSION >= 12000
template <class T, int dim, enum cudaTextureReadMode mode>
struct autosync_legacy_texture {
  cudaTextureObject_t obj;
};
template <class T>
__device__ T tex2D(const autosync_legacy_texture<T, 2, cudaReadModeElementType> &t, float x,
                   float y) {
  return tex2D<T>(t.obj, x, y);
}
#define texture __device__ autosync_legacy_texture
#endif

#else /* verification front end: declarations only */

#ifndef __requires
__device__ void __requires(bool expr);
#endif
#ifndef __ensures
__device__ void __ensures(bool expr);
#endif
#ifndef __assert
__device__ void __assert(bool expr);
#endif
#ifndef __assume
__device__ void __assume(bool expr);
#endif
#ifndef __invariant
__device__ void __invariant(bool expr);
#endif
#ifndef __global_invariant
__device__ void __global_invariant(bool expr);
#endif
#ifndef __implies
__device__ bool __implies(bool a, bool b);
#endif
#ifndef __write_implies
__device__ bool __write_implies(const void *p, bool expr);
#endif
#ifndef __read_implies
__device__ bool __read_implies(const void *p, bool expr);
#endif
#ifndef __write_offset_bytes
__device__ unsigned __write_offset_bytes(const void *p);
#endif
#ifndef __read_offset_bytes
__device__ unsigned __read_offset_bytes(const void *p);
#endif
#ifndef __same_group
__device__ bool __same_group_impl(void);
#define __same_group __same_group_impl()
#endif

#endif /* __CUDACC__ */

#endif /* AUTOSYNC_ANNOTATIONS_H */
