/* AutoSync: the curand host API is not verified; the device API is in curand_kernel.h. */
#pragma once
#include <curand_kernel.h>
typedef struct curandGenerator_st *curandGenerator_t;
