//xfail:NOT_ALL_VERIFIED
//--blockDim=256 --gridDim=16
// autosync: races=23-25
// 20_cgtile_ok.cu without the block barrier: the first tile's read of partial[lane]
// (line R1) races with lane 0 of another tile writing its partial sum (line R1).

#include <cooperative_groups.h>
namespace cg = cooperative_groups;

__device__ float tile_sum(cg::thread_block_tile<32> tile, float v) {
  for (int offset = tile.size() / 2; offset > 0; offset /= 2)
    v += tile.shfl_down(v, offset);
  return v;
}

__global__ void block_sum(const float *in, float *out) {
  __shared__ float partial[8];
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
  float v = in[blockIdx.x * 256 + block.thread_rank()];
  float s = tile_sum(tile, v);
  if (tile.thread_rank() == 0)
    partial[tile.meta_group_rank()] = s;  // R1
  if (tile.meta_group_rank() == 0) {
    float p = tile.thread_rank() < 8 ? partial[tile.thread_rank()] : 0.0f;  // R1
    float total = tile_sum(tile, p);
    if (tile.thread_rank() == 0)
      out[blockIdx.x] = total;
  }
}
