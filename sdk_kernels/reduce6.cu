//pass
//--blockDim=256 --gridDim=64 --warp-sync=32
// autosync: min_barriers=3 original_barriers=4
// Reduction #6: like #5, but each thread first accumulates a grid-strided sequence of
// inputs, so a fixed number of blocks handles any n (Brent's theorem).

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

template <class T, unsigned int blockSize, bool nIsPow2>
__global__ void reduce6(T *g_idata, T *g_odata, unsigned int n) {
  __requires(n == 1 << 24);
  T *sdata = SharedMemory<T>();

  // the number of blocks is fixed by the launch: each thread walks the input with a
  // grid-sized stride, adding two elements (one block-width apart) per step
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * blockSize * 2 + threadIdx.x;
  unsigned int gridSize = blockSize * 2 * gridDim.x;
  T mySum = 0;

  while (i < n) {
    mySum += g_idata[i];
    // the bound check on the second element is only needed when n is not a power of 2
    if (nIsPow2 || i + blockSize < n) {
      mySum += g_idata[i + blockSize];
    }
    i += gridSize;
  }

  // each thread puts its local sum into shared memory
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

template __global__ void reduce6<int, 256, true>(int *g_idata, int *g_odata, unsigned int n);
