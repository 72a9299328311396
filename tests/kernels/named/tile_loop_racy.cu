//xfail:NOT_ALL_VERIFIED
//--blockDim=64 --gridDim=1
// autosync: expect=race
// Tiles in a loop (our own): per tile, warp 0 writes two rows of a shared tile in an inner
// loop and warp 1 reads them; a block barrier ends each tile, so only the write -> read order
// inside one tile is missing.  The least costly pair: arrive after the inner loop (C = 100 *
// 1/2), not inside it (100 * 100 * 1/2), and sync before the read (100 * 1/2).
#define TILES 3

__global__ void tile_loop(const float *in, float *out) {
  __shared__ float tile[64];
  int warp = threadIdx.x / 32;
  int lane = threadIdx.x % 32;
  float acc = 0.0f;
  for (int t = 0; t < TILES; t++) {
    if (warp == 0) {
      for (int r = 0; r < 2; r++) {
        tile[r * 32 + lane] = in[(t * 2 + r) * 32 + lane];
      }
    } else {
      acc += tile[lane] * tile[32 + (lane + t) % 32];
    }
    __syncthreads();
  }
  out[threadIdx.x] = acc;
}
