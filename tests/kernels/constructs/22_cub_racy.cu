//xfail:NOT_ALL_VERIFIED
//--blockDim=128 --gridDim=4
// autosync: races=23-25
// 22_cub_ok.cu without the __syncthreads() between the two collectives: the scan stores
// each thread's count in the union (line R2) while thread 0 may still be reading the
// reduction's slots (line R1) -- the reuse CUB's documentation warns about.
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
  int top = Reduce(temp.reduce).Reduce(c, MaxOf());  // R1
  int start;
  Scan(temp.scan).ExclusiveSum(c, start);  // R2
  starts[i] = start;
  int w = cub::WarpReduce<int>(warp_temp[threadIdx.x / 32]).Sum(c);
  if (threadIdx.x % 32 == 0) warp_totals[i / 32] = w;
  if (threadIdx.x == 0) row_max[blockIdx.x] = top;
}
