//pass
//--blockDim=256 --gridDim=16
// Warp-level reduction with cg::tiled_partition<32>: each tile of 32 threads reduces its
// own 32-element segment seg = s + 32 * tile_index, with tile.sync() after each step.
// Within a tile: one writer per cell per step; across tiles: disjoint segments.  The
// lane-0 results go to warp_sum[] and are combined after the block barrier.  Race-free.

#include <cooperative_groups.h>
namespace cg = cooperative_groups;

__global__ void tile_sums(const float *in, float *out) {
  __shared__ float s[256];
  __shared__ float warp_sum[8];
  cg::thread_block b = cg::this_thread_block();
  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(b);
  unsigned lane = tile.thread_rank();
  float *seg = s + 32 * (threadIdx.x / 32);
  seg[lane] = in[blockIdx.x * 256 + threadIdx.x];
  tile.sync();
  for (unsigned half = 16; half > 0; half >>= 1) {
    if (lane < half)
      seg[lane] += seg[lane + half];
    tile.sync();
  }
  if (lane == 0)
    warp_sum[threadIdx.x / 32] = seg[0];
  b.sync();
  if (threadIdx.x == 0) {
    float sum = 0.0f;
    for (int w = 0; w < 8; ++w)
      sum += warp_sum[w];
    out[blockIdx.x] = sum;
  }
}
