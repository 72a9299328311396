//pass
//--blockDim=64 --gridDim=1
// autosync: expect=ok
// The race-free twin of tile_loop_racy.cu: bar.arrive after warp 0's rows, bar.sync before
// warp 1's read, on barrier 1 for both warps.
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
      asm volatile("bar.arrive 1, 64;");
    } else {
      asm volatile("bar.sync 1, 64;");
      acc += tile[lane] * tile[32 + (lane + t) % 32];
    }
    __syncthreads();
  }
  out[threadIdx.x] = acc;
}
