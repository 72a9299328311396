/* AutoSync's declarations of CUDA's cooperative groups (written for AutoSync from the public
 * API, not taken from CUDA).  Every member function is declared WITHOUT a body: the translator
 * models each one (kpl/frontend/library.py): a block's sync() is __syncthreads(), a grid's a grid
 * barrier, a 32-thread tile's __syncwarp(); thread_rank()/size() are exact expressions of
 * threadIdx/blockDim; a tile's shuffles and votes are the warp intrinsics.  A member the
 * translator does not know is an error, never ignored. */
#pragma once

namespace cooperative_groups {

/* a group whose size is known only at run time (tiled_partition(parent, n)) */
class thread_group {
public:
  unsigned int __size;  /* the number of threads: what thread_rank() and size() are made of */
  __device__ void sync() const;
  __device__ unsigned int thread_rank() const;
  __device__ unsigned int size() const;
  __device__ unsigned int num_threads() const;
};

class thread_block {
public:
  unsigned int __size;  /* blockDim.x * blockDim.y * blockDim.z */
  __device__ void sync() const;
  __device__ unsigned int thread_rank() const;
  __device__ unsigned int size() const;
  __device__ unsigned int num_threads() const;
  __device__ dim3 group_index() const;
  __device__ dim3 thread_index() const;
  __device__ dim3 group_dim() const;
  __device__ dim3 dim_threads() const;
  __device__ operator thread_group() const;
};

class grid_group {
public:
  unsigned long long __size;  /* the number of threads of the grid */
  __device__ void sync() const;
  __device__ bool is_valid() const;
  __device__ unsigned long long thread_rank() const;
  __device__ unsigned long long size() const;
  __device__ unsigned long long num_threads() const;
  __device__ unsigned int block_rank() const;
  __device__ unsigned int num_blocks() const;
  __device__ dim3 group_dim() const;
  __device__ dim3 dim_blocks() const;
  __device__ dim3 block_index() const;
};

#define __AS_CG_WARP_OPS                                                    \
  __device__ void sync() const;                                            \
  __device__ unsigned int thread_rank() const;                             \
  __device__ unsigned int size() const;                                    \
  __device__ unsigned int num_threads() const;                             \
  template <typename T> __device__ T shfl(T var, int src_rank) const;      \
  template <typename T> __device__ T shfl_down(T var, unsigned int delta) const; \
  template <typename T> __device__ T shfl_up(T var, unsigned int delta) const; \
  template <typename T> __device__ T shfl_xor(T var, unsigned int mask) const; \
  __device__ int any(int predicate) const;                                 \
  __device__ int all(int predicate) const;                                 \
  __device__ unsigned int ballot(int predicate) const;                     \
  __device__ operator thread_group() const;

template <unsigned int Size>
class thread_block_tile {
public:
  static_assert(Size > 0 && (Size & (Size - 1)) == 0, "tile size must be a power of two");
  unsigned int __meta_rank, __meta_size;  /* the tile's index among its parent's, their count */
  __AS_CG_WARP_OPS
  __device__ unsigned int meta_group_rank() const;
  __device__ unsigned int meta_group_size() const;
};

class coalesced_group {
public:
  unsigned int __size;  /* the number of lanes active when it was made */
  __AS_CG_WARP_OPS
};
#undef __AS_CG_WARP_OPS

__device__ thread_block this_thread_block();
__device__ grid_group this_grid();
__device__ coalesced_group coalesced_threads();
template <unsigned int Size> __device__ thread_block_tile<Size> tiled_partition(const thread_block &parent);
template <unsigned int Size, unsigned int P>
__device__ thread_block_tile<Size> tiled_partition(const thread_block_tile<P> &parent);
__device__ thread_group tiled_partition(const thread_block &parent, unsigned int tile_size);
template <unsigned int P>
__device__ thread_group tiled_partition(const thread_block_tile<P> &parent, unsigned int tile_size);
__device__ thread_group tiled_partition(const thread_group &parent, unsigned int tile_size);

/* the free spellings of sync() */
template <typename Group> __device__ void sync(const Group &g);
template <typename Group> __device__ void synchronize(const Group &g);

/* the operators of reduce() (cooperative_groups/reduce.h): plain functors with bodies */
template <typename T> struct plus { __device__ T operator()(T a, T b) const { return a + b; } };
template <typename T> struct less { __device__ T operator()(T a, T b) const { return b < a ? b : a; } };
template <typename T> struct greater { __device__ T operator()(T a, T b) const { return a < b ? b : a; } };
template <typename T> struct bit_and { __device__ T operator()(T a, T b) const { return a & b; } };
template <typename T> struct bit_or { __device__ T operator()(T a, T b) const { return a | b; } };
template <typename T> struct bit_xor { __device__ T operator()(T a, T b) const { return a ^ b; } };

/* reduce(group, value, op): every thread of the group gets op folded over the group's values */
template <typename Group, typename T, typename Op> __device__ T reduce(const Group &g, T value, Op op);

} // namespace cooperative_groups
