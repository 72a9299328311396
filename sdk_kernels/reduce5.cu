//pass
//--blockDim=256 --gridDim=32768 --warp-sync=32
// autosync: min_barriers=3 original_barriers=4
// Reduction #5: two loads per thread, then a completely unrolled tree for a block size
// known at compile time (template parameter), finished warp-synchronously by one warp.

#include "annotations.h"

template <class T> struct SharedMemory {
  __device__ inline operator T *() {
    extern __shared__ int __smem[];
    return (T *)__smem;
  }
  __device__ inline operator const T *() const {
    extern __shared__ int __smem[];
    return (T *)__smem;
  }
};

// doubles need 8-byte alignment, so they get their own extern array
template <> struct SharedMemory<double> {
  __device__ inline operator double *() {
    extern __shared__ double __smem_d[];
    return (double *)__smem_d;
  }
  __device__ inline operator const double *() const {
    extern __shared__ double __smem_d[];
    return (double *)__smem_d;
  }
};

template <class T, unsigned int blockSize>
__global__ void reduce5(T *g_idata, T *g_odata, unsigned int n) {
  __requires(n == 1 << 24);
  T *sdata = SharedMemory<T>();

  // each thread loads two elements (one block-width apart) and adds them
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * (blockSize * 2) + threadIdx.x;

  T mySum = (i < n) ? g_idata[i] : 0;
  if (i + blockSize < n) {
    mySum += g_idata[i + blockSize];
  }
  sdata[tid] = mySum;
  __syncthreads();

  // reduction in shared memory, fully unrolled for the compile-time block size
  if (blockSize >= 512) {
    if (tid < 256) {
      sdata[tid] = mySum = mySum + sdata[tid + 256];
    }
    __syncthreads();
  }
  if (blockSize >= 256) {
    if (tid < 128) {
      sdata[tid] = mySum = mySum + sdata[tid + 128];
    }
    __syncthreads();
  }
  if (blockSize >= 128) {
    if (tid < 64) {
      sdata[tid] = mySum = mySum + sdata[tid + 64];
    }
    __syncthreads();
  }

  // the last 32 values are combined by a single warp without barriers
  // (warp-synchronous; relies on --warp-sync=32 and the volatile pointer)
  if (tid < 32) {
    volatile T *smem = sdata;
    if (blockSize >= 64) {
      smem[tid] = mySum = mySum + smem[tid + 32];
    }
    if (blockSize >= 32) {
      smem[tid] = mySum = mySum + smem[tid + 16];
    }
    if (blockSize >= 16) {
      smem[tid] = mySum = mySum + smem[tid + 8];
    }
    if (blockSize >= 8) {
      smem[tid] = mySum = mySum + smem[tid + 4];
    }
    if (blockSize >= 4) {
      smem[tid] = mySum = mySum + smem[tid + 2];
    }
    if (blockSize >= 2) {
      smem[tid] = mySum = mySum + smem[tid + 1];
    }
  }

  // write result for this block to global memory
  if (tid == 0) g_odata[blockIdx.x] = sdata[0];
}

template __global__ void reduce5<int, 256>(int *g_idata, int *g_odata, unsigned int n);
