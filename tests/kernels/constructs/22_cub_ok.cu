//pass
//--blockDim=128 --gridDim=4
// CUB's block collectives on one shared TempStorage union, as its documentation shows: a
// BlockReduce for the row's maximum, a BlockScan for each element's offset, and the
// __syncthreads() CUB asks for before the storage is used again.  A WarpReduce needs no
// shared memory.  Race-free.
#include <cub/cub.cuh>

struct MaxOf {
  __device__ int operator()(int a, int b) const { return a < b ? b : a; }
};

__global__ void offsets(const int *counts, int *starts, int *row_max, int *warp_totals) {
  typedef cub::BlockReduce<int, 128> Reduce;
  typedef cub::BlockScan<int, 128> Scan;
  __shared__ union {
    typename Reduce::TempStorage reduce;
    typename Scan::TempStorage scan;
  } temp;
  __shared__ typename cub::WarpReduce<int>::TempStorage warp_temp[4];
  int i = blockIdx.x * 128 + threadIdx.x;
  int c = counts[i];
  int top = Reduce(temp.reduce).Reduce(c, MaxOf());
  __syncthreads();
  int start;
  Scan(temp.scan).ExclusiveSum(c, start);
  starts[i] = start;
  int w = cub::WarpReduce<int>(warp_temp[threadIdx.x / 32]).Sum(c);
  if (threadIdx.x % 32 == 0) warp_totals[i / 32] = w;
  if (threadIdx.x == 0) row_max[blockIdx.x] = top;
}
