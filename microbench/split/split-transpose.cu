//xfail:NOT_ALL_VERIFIED
//--blockDim=[16,16] --gridDim=[4,4]
// autosync: min_barriers=2
// Transposes each 16x16 tile of a 64x64 matrix in place in shared memory: thread (x, y)
// reads tile[x][y] while thread (y, x) writes it, in the same statement.
__global__ void transpose_tiles(float *m) {
    __shared__ float tile[16][17];
    unsigned tx = threadIdx.x, ty = threadIdx.y;
    unsigned x = blockIdx.x * 16 + tx, y = blockIdx.y * 16 + ty;
    tile[ty][tx] = m[y * 64 + x];
    tile[ty][tx] = tile[tx][ty];
    m[y * 64 + x] = tile[ty][tx];
}
