//xfail:NOT_ALL_VERIFIED
//--blockDim=[32,8] --gridDim=[8,8]
// autosync: races=14-16
// 17_device_shared_ok.cu without the barrier: thread (tx, ty) reads tile[tx][ty + j]
// (line R1) while thread (ty + j, tx % 8) writes it (line R1) -- a race inside one block.
// (Blocks do not race with each other: the tile is shared memory, one copy per block.)

__device__ __shared__ float tile[32][33];

__global__ void transpose256(const float *in, float *out) {
  int bx = blockIdx.x * 32, by = blockIdx.y * 32;
  int tx = threadIdx.x, ty = threadIdx.y;
  for (int j = 0; j < 32; j += 8)
    tile[ty + j][tx] = in[(by + ty + j) * 256 + bx + tx];  // R1
  for (int j = 0; j < 32; j += 8)
    out[(bx + ty + j) * 256 + by + tx] = tile[tx][ty + j];  // R1
}
