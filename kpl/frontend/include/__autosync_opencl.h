/* AutoSync's CUDA prelude, part: OpenCL's work-group barrier as `fix --target opencl` writes it
 * (written for AutoSync).  Read only by files that name it; a user's own `barrier` with a body
 * is the same function and is inlined like any other. */
#pragma once
#define CLK_LOCAL_MEM_FENCE 1
#define CLK_GLOBAL_MEM_FENCE 2
__device__ void barrier(unsigned int flags);
