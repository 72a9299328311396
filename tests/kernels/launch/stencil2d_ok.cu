//pass
// A 2-D five-point stencil over a w x h grid, one TILE x TILE tile of it per block, staged in
// shared memory.  The host launches it with dim3 blocks of TILE x TILE threads: it must be
// checked as a 2-D kernel (as 1-D, threadIdx.y would be 0 and the tile a single row).
#define TILE 16

__global__ void stencil2d(const float *in, float *out, int w, int h) {
    __shared__ float tile[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int x = blockIdx.x * TILE + tx;
    int y = blockIdx.y * TILE + ty;
    bool inside = x < w && y < h;
    tile[ty][tx] = inside ? in[y * w + x] : 0.0f;
    __syncthreads();
    if (inside) {
        float c = tile[ty][tx];
        float l = tx > 0 ? tile[ty][tx - 1] : c;
        float r = tx < TILE - 1 ? tile[ty][tx + 1] : c;
        float u = ty > 0 ? tile[ty - 1][tx] : c;
        float d = ty < TILE - 1 ? tile[ty + 1][tx] : c;
        out[y * w + x] = 0.2f * (c + l + r + u + d);
    }
}

void smooth(const float *in, float *out, int w, int h) {
    dim3 block(TILE, TILE);
    dim3 grid((w + TILE - 1) / TILE, (h + TILE - 1) / TILE);
    stencil2d<<<grid, block>>>(in, out, w, h);
}
