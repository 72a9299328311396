//xfail:NOT_ALL_VERIFIED
// A racy twin of gridstride_ok.cu: the loop steps by one block (blockDim.x), not by the
// grid, so under a grid of two or more blocks block b's second element is block b + 1's
// first -- a race between blocks that only a symbolic grid of more than one block shows.
__global__ void scale(float *d, int n, float a) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x)
        d[i] = a * d[i];
}

static int cap(int blocks, int most) { return blocks < most ? blocks : most; }

void scale_all(float *d, int n, int max_blocks) {
    int threads = 256;
    scale<<<cap((n + threads - 1) / threads, max_blocks), threads>>>(d, n, 2.0f);
}
