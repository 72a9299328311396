//pass
//--blockDim=[32,8] --gridDim=[8,8]
// Tiled matrix transpose of a 256 x 256 matrix with a FILE-SCOPE `__device__ __shared__`
// tile: it is still per-block shared memory (no cross-block races), not global memory.
// Each thread writes 4 tile cells (rows ty, ty + 8, ...) and after the barrier reads 4
// transposed cells.  Race-free.

__device__ __shared__ float tile[32][33];

__global__ void transpose256(const float *in, float *out) {
  int bx = blockIdx.x * 32, by = blockIdx.y * 32;
  int tx = threadIdx.x, ty = threadIdx.y;
  for (int j = 0; j < 32; j += 8)
    tile[ty + j][tx] = in[(by + ty + j) * 256 + bx + tx];
  __syncthreads();
  for (int j = 0; j < 32; j += 8)
    out[(bx + ty + j) * 256 + by + tx] = tile[tx][ty + j];
}
