//xfail:NOT_ALL_VERIFIED
// The racy twin of stencil2d_ok.cu: no barrier between filling the tile and reading the
// neighbours, so a thread reads tile[ty - 1][tx] while the thread of the row above writes it.
#define TILE 16

__global__ void stencil2d(const float *in, float *out, int w, int h) {
    __shared__ float tile[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int x = blockIdx.x * TILE + tx;
    int y = blockIdx.y * TILE + ty;
    bool inside = x < w && y < h;
    tile[ty][tx] = inside ? in[y * w + x] : 0.0f;
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
