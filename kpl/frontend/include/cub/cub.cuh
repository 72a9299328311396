/* AutoSync's CUB (written for AutoSync, not taken from CUB): the block- and warp-wide
 * collectives kernels use most, with bodies that make CUB's contract checkable.
 *
 * WHY bodies and not models: a collective stores each thread's value in its TempStorage,
 * synchronizes, and reads the others' -- so reusing one TempStorage for a second collective
 * without a __syncthreads() in between races (CUB's documentation asks for that barrier), and
 * a collective under divergent control is barrier divergence.  The bodies below do exactly
 * those accesses and that barrier and nothing more, so both findings come out of the kernel's
 * own check, at the user's call, and `fix` places the barrier between the two calls.  The
 * values are the reductions and scans they compute; the algorithm template parameters are
 * accepted and do not change the model.  Device-wide algorithms (DeviceReduce, DeviceScan,
 * ...) are host calls: declared so that host code reads, never run.
 */
#pragma once

namespace cub {

struct Sum {
  template <typename T> __device__ __host__ T operator()(const T &a, const T &b) const { return a + b; }
};
struct Max {
  template <typename T> __device__ __host__ T operator()(const T &a, const T &b) const { return a < b ? b : a; }
};
struct Min {
  template <typename T> __device__ __host__ T operator()(const T &a, const T &b) const { return b < a ? b : a; }
};

enum BlockReduceAlgorithm { BLOCK_REDUCE_RAKING_COMMUTATIVE_ONLY, BLOCK_REDUCE_RAKING, BLOCK_REDUCE_WARP_REDUCTIONS };
enum BlockScanAlgorithm { BLOCK_SCAN_RAKING, BLOCK_SCAN_RAKING_MEMOIZE, BLOCK_SCAN_WARP_SCANS };

/* the calling thread's rank in a block of BX x BY x BZ threads (CUB's linear order) */
template <int BX, int BY, int BZ> __device__ __forceinline__ int __autosync_rank() {
  return (BY == 1 && BZ == 1) ? (int)threadIdx.x
                              : (int)((threadIdx.z * BY + threadIdx.y) * BX + threadIdx.x);
}

template <typename T, int BLOCK_DIM_X, BlockReduceAlgorithm ALGORITHM = BLOCK_REDUCE_WARP_REDUCTIONS,
          int BLOCK_DIM_Y = 1, int BLOCK_DIM_Z = 1, int LEGACY_PTX_ARCH = 0>
class BlockReduce {
 public:
  static constexpr int BLOCK_THREADS = BLOCK_DIM_X * BLOCK_DIM_Y * BLOCK_DIM_Z;
  struct TempStorage { T slot[BLOCK_THREADS]; };

  __device__ BlockReduce(TempStorage &temp_storage) : temp(temp_storage) {}

  /* every thread's value in its slot, a barrier, thread 0 folds them (only its result is
     defined, as in CUB; the others get their own input back) */
  template <typename Op> __device__ T Reduce(T input, Op op, int num_valid = BLOCK_THREADS) {
    int me = __autosync_rank<BLOCK_DIM_X, BLOCK_DIM_Y, BLOCK_DIM_Z>();
    temp.slot[me] = input;
    __syncthreads();
    T total = input;
    if (me == 0) {
      for (int i = 1; i < num_valid; ++i) total = op(total, temp.slot[i]);
    }
    return total;
  }
  template <int ITEMS, typename Op> __device__ T Reduce(T (&inputs)[ITEMS], Op op) {
    T partial = inputs[0];
    for (int i = 1; i < ITEMS; ++i) partial = op(partial, inputs[i]);
    return Reduce(partial, op);
  }
  __device__ T Sum(T input, int num_valid = BLOCK_THREADS) { return Reduce(input, ::cub::Sum(), num_valid); }
  template <int ITEMS> __device__ T Sum(T (&inputs)[ITEMS]) { return Reduce(inputs, ::cub::Sum()); }

 private:
  TempStorage &temp;
};

template <typename T, int BLOCK_DIM_X, BlockScanAlgorithm ALGORITHM = BLOCK_SCAN_RAKING,
          int BLOCK_DIM_Y = 1, int BLOCK_DIM_Z = 1, int LEGACY_PTX_ARCH = 0>
class BlockScan {
 public:
  static constexpr int BLOCK_THREADS = BLOCK_DIM_X * BLOCK_DIM_Y * BLOCK_DIM_Z;
  struct TempStorage { T slot[BLOCK_THREADS]; };

  __device__ BlockScan(TempStorage &temp_storage) : temp(temp_storage) {}

  /* every thread's value in its slot, a barrier, and each thread reads every slot: those
     before its own make its prefix, all of them the block's aggregate (one loop, so that the
     verifier sees one read of the slots, not two) */
  template <typename Op>
  __device__ void Scan(T input, T &output, T initial, Op op, T &aggregate, bool inclusive) {
    int me = __autosync_rank<BLOCK_DIM_X, BLOCK_DIM_Y, BLOCK_DIM_Z>();
    temp.slot[me] = input;
    __syncthreads();
    T prefix = initial, total = initial;
    for (int i = 0; i < BLOCK_THREADS; ++i) {
      T value = temp.slot[i];
      if (i < me || (inclusive && i == me)) prefix = inclusive && i == 0 ? value : op(prefix, value);
      total = i == 0 ? value : op(total, value);
    }
    output = prefix;
    aggregate = total;
  }

  template <typename Op> __device__ void ExclusiveScan(T input, T &output, T initial, Op op, T &aggregate) {
    Scan(input, output, initial, op, aggregate, false);
  }
  template <typename Op> __device__ void ExclusiveScan(T input, T &output, T initial, Op op) {
    T aggregate;
    ExclusiveScan(input, output, initial, op, aggregate);
  }
  template <typename Op> __device__ void InclusiveScan(T input, T &output, Op op, T &aggregate) {
    Scan(input, output, input, op, aggregate, true);
  }
  template <typename Op> __device__ void InclusiveScan(T input, T &output, Op op) {
    T aggregate;
    InclusiveScan(input, output, op, aggregate);
  }
  __device__ void ExclusiveSum(T input, T &output) { ExclusiveScan(input, output, T(0), ::cub::Sum()); }
  __device__ void ExclusiveSum(T input, T &output, T &aggregate) {
    ExclusiveScan(input, output, T(0), ::cub::Sum(), aggregate);
  }
  __device__ void InclusiveSum(T input, T &output) { InclusiveScan(input, output, ::cub::Sum()); }
  __device__ void InclusiveSum(T input, T &output, T &aggregate) {
    InclusiveScan(input, output, ::cub::Sum(), aggregate);
  }

 private:
  TempStorage &temp;
};

/* warp collectives: shuffles only, so no shared memory; the lanes of one logical warp must
   all call them (a __syncwarp-like contract our shuffle model does not check further) */
template <typename T, int LOGICAL_WARP_THREADS = 32, int LEGACY_PTX_ARCH = 0>
class WarpReduce {
 public:
  struct TempStorage { T unused; };
  __device__ WarpReduce(TempStorage &) {}
  template <typename Op> __device__ T Reduce(T input, Op op) {
    for (int offset = LOGICAL_WARP_THREADS / 2; offset > 0; offset /= 2)
      input = op(input, __shfl_down_sync(0xffffffffu, input, offset, LOGICAL_WARP_THREADS));
    return input;
  }
  __device__ T Sum(T input) { return Reduce(input, ::cub::Sum()); }
};

template <typename T, int LOGICAL_WARP_THREADS = 32, int LEGACY_PTX_ARCH = 0>
class WarpScan {
 public:
  struct TempStorage { T unused; };
  __device__ WarpScan(TempStorage &) {}
  __device__ void InclusiveSum(T input, T &output) {
    int lane = (int)(threadIdx.x % LOGICAL_WARP_THREADS);
    for (int offset = 1; offset < LOGICAL_WARP_THREADS; offset *= 2) {
      T other = __shfl_up_sync(0xffffffffu, input, offset, LOGICAL_WARP_THREADS);
      if (lane >= offset) input = input + other;
    }
    output = input;
  }
  __device__ void ExclusiveSum(T input, T &output) {
    T inclusive;
    InclusiveSum(input, inclusive);
    output = inclusive - input;
  }
};

/* device-wide algorithms are host calls: any arguments, never modelled (no kernel runs them) */
#define __AUTOSYNC_CUB_DEVICE(NAME)                                                          \
  struct NAME {                                                                              \
    template <typename... Args> static __host__ cudaError_t Sum(Args...) { return cudaSuccess; }            \
    template <typename... Args> static __host__ cudaError_t Max(Args...) { return cudaSuccess; }            \
    template <typename... Args> static __host__ cudaError_t Min(Args...) { return cudaSuccess; }            \
    template <typename... Args> static __host__ cudaError_t Reduce(Args...) { return cudaSuccess; }         \
    template <typename... Args> static __host__ cudaError_t ExclusiveSum(Args...) { return cudaSuccess; }   \
    template <typename... Args> static __host__ cudaError_t InclusiveSum(Args...) { return cudaSuccess; }   \
    template <typename... Args> static __host__ cudaError_t ExclusiveScan(Args...) { return cudaSuccess; }  \
    template <typename... Args> static __host__ cudaError_t InclusiveScan(Args...) { return cudaSuccess; }  \
    template <typename... Args> static __host__ cudaError_t SortKeys(Args...) { return cudaSuccess; }       \
    template <typename... Args> static __host__ cudaError_t SortPairs(Args...) { return cudaSuccess; }      \
    template <typename... Args> static __host__ cudaError_t Flagged(Args...) { return cudaSuccess; }        \
    template <typename... Args> static __host__ cudaError_t If(Args...) { return cudaSuccess; }             \
  };
__AUTOSYNC_CUB_DEVICE(DeviceReduce)
__AUTOSYNC_CUB_DEVICE(DeviceScan)
__AUTOSYNC_CUB_DEVICE(DeviceRadixSort)
__AUTOSYNC_CUB_DEVICE(DeviceSelect)
#undef __AUTOSYNC_CUB_DEVICE

}  // namespace cub
