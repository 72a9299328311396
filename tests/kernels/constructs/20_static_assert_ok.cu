//pass
//--blockDim=[32,8] --gridDim=[8,8]
// A tiled 256x256 matrix transpose guarded by static_assert at namespace scope, inside a struct,
// inside a function template and inside the kernel.  A 32x8 block moves a 32x32 tile:
// thread (x, y) stores rows y, y + 8, y + 16, y + 24 of column x into tile[][] (padded
// to 33 columns), the barrier orders all stores before thread (x, y) reads column
// entries tile[x][y + 8k], and each output cell is written by one thread.  Race-free.

constexpr int kTile = 32;
constexpr int kRows = 8;
constexpr int kWidth = 8 * kTile;
static_assert(kTile % kRows == 0, "the block must cover the tile in whole passes");

struct TileShape {
  static constexpr int kPitch = kTile + 1;
  static_assert(kPitch > kTile, "padding column expected");
};

template <typename T>
__device__ T load_cell(const T *src, int row, int col) {
  static_assert(sizeof(T) <= 8, "cells are at most 8 bytes");
  return src[row * kWidth + col];
}

__global__ void transpose(const float *in, float *out) {
  static_assert(sizeof(float) == 4, "float is 32-bit");
  __shared__ float tile[kTile][TileShape::kPitch];
  int x = threadIdx.x;
  int y = threadIdx.y;
  int col = blockIdx.x * kTile + x;
  for (int k = 0; k < kTile; k += kRows)
    tile[y + k][x] = load_cell(in, blockIdx.y * kTile + y + k, col);
  __syncthreads();
  int ocol = blockIdx.y * kTile + x;
  for (int k = 0; k < kTile; k += kRows)
    out[(blockIdx.x * kTile + y + k) * kWidth + ocol] = tile[x][y + k];
}
