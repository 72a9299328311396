//xfail:NOT_ALL_VERIFIED
//--blockDim=[32,8] --gridDim=[8,8]
// autosync: races=31-34
// 20_static_assert_ok.cu without the barrier between the tile stores and the transposed
// reads: thread (x, y) reads tile[x][y + k] (line R1) while thread (y + k, x mod 8)
// stores it (line R1).  The static_asserts must not swallow the statements.

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
    tile[y + k][x] = load_cell(in, blockIdx.y * kTile + y + k, col);  // R1
  int ocol = blockIdx.y * kTile + x;
  for (int k = 0; k < kTile; k += kRows)
    out[(blockIdx.x * kTile + y + k) * kWidth + ocol] = tile[x][y + k];  // R1
}
