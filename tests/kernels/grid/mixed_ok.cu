//pass
//--blockDim=64 --gridDim=4
// mixed_racy.cu ordered: a block barrier for the tile, a grid barrier for the row.
#include <cooperative_groups.h>
__global__ void reverse_then_pass(const int *in, int *row, int *out) {
  __shared__ int tile[64];
  unsigned t = threadIdx.x;
  unsigned b = blockIdx.x;
  tile[t] = in[b * 64u + t];
  __syncthreads();
  int mine = tile[63u - t];
  row[b * 64u + t] = mine;
  cooperative_groups::this_grid().sync();
  out[b * 64u + t] = row[((b + 1u) % gridDim.x) * 64u + t];
}
