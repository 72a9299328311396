//xfail:NOT_ALL_VERIFIED
//--blockDim=[16,16] --gridDim=[4,4]
// autosync: races=10-12
// Tile transpose with the barrier missing: the transposed read races with the write.

__global__ void racy_transpose(const float *in, float *out) {
  __shared__ float tile[16][16];
  int x = blockIdx.x * 16 + threadIdx.x;
  int y = blockIdx.y * 16 + threadIdx.y;
  tile[threadIdx.y][threadIdx.x] = in[y * 64 + x];
  int tx = blockIdx.y * 16 + threadIdx.x;
  out[(blockIdx.x * 16 + threadIdx.y) * 64 + tx] = tile[threadIdx.x][threadIdx.y];
}
