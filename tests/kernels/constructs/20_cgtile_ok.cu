//pass
//--blockDim=256 --gridDim=16
// A block sum with cooperative groups: each 32-thread tile from
// cg::tiled_partition<32>(cg::this_thread_block()) reduces its values in registers with
// tile.shfl_down, its lane 0 writes the tile's partial sum to partial[tile index], the
// block barrier orders those writes before the first tile reads all eight partials and
// reduces them with shfl_down again.  One writer per partial[] cell.  Race-free.

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
    partial[tile.meta_group_rank()] = s;
  block.sync();
  if (tile.meta_group_rank() == 0) {
    float p = tile.thread_rank() < 8 ? partial[tile.thread_rank()] : 0.0f;
    float total = tile_sum(tile, p);
    if (tile.thread_rank() == 0)
      out[blockIdx.x] = total;
  }
}
