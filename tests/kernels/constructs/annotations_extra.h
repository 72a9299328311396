/* GPUVerify annotations that ../annotations.h does not declare yet: __read / __write
 * (did the calling thread read / write this array in the current barrier interval),
 * __other_int (the value of an expression in the OTHER thread of the checked pair) and
 * __uniform_int (an expression with the same value in every thread) and __return_val_int()
 * (in an __ensures: the value the function returns).  Same scheme as
 * ../annotations.h: no-ops for nvcc, declarations for the verification front end. */
#ifndef CONSTRUCTS_ANNOTATIONS_EXTRA_H
#define CONSTRUCTS_ANNOTATIONS_EXTRA_H

#include "annotations.h"

#if defined(__CUDACC__) && !defined(__AUTOSYNC__)
#define __read(p) (true)
#define __write(p) (true)
#define __other_int(x) (x)
#define __uniform_int(x) (true)
#define __return_val_int() (0)
#define __no_read(p) (true)
#define __no_write(p) (true)
#define __distinct_int(x) (true)
#else
__device__ bool __read(const void *p);
__device__ bool __write(const void *p);
__device__ int __other_int(int x);
__device__ bool __uniform_int(int x);
__device__ int __return_val_int(void);
__device__ bool __no_read(const void *p);
__device__ bool __no_write(const void *p);
__device__ bool __distinct_int(int x);
#endif

#endif
