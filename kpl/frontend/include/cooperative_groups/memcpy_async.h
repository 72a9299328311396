/* AutoSync's declarations of cooperative_groups::memcpy_async and wait (written for AutoSync).
 * An asynchronous group copy is NOT modelled: the translator reports it as unsupported
 * (kpl/frontend/library.py) rather than guess when its stores happen. */
#pragma once
#include <cooperative_groups.h>

namespace cooperative_groups {
template <typename Group>
__device__ void memcpy_async(const Group &group, void *dst, const void *src, size_t bytes);
template <typename Group> __device__ void wait(const Group &group);
template <unsigned int N, typename Group> __device__ void wait_prior(const Group &group);
} // namespace cooperative_groups
