/* The user's own helper_math.h (written for this test): when a kernel's folder ships one,
 * it is used instead of the bundled stub.  scale3 writes through its pointer argument, so
 * a race through it is visible only if THIS header is the one read. */
#ifndef OWN_HELPER_MATH_H
#define OWN_HELPER_MATH_H
#include "cuda_runtime.h"

inline __device__ float dot3(float3 a, float3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
inline __device__ void scale3(float3 *p, float s) {
  p->x = p->x * s;
  p->y = p->y * s;
  p->z = p->z * s;
}
#endif
