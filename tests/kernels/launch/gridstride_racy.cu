//xfail:NOT_ALL_VERIFIED
// The racy twin of gridstride_ok.cu: element i writes out[i / 2], so the threads of i = 2k and
// i = 2k + 1 (neighbours in one block, or the last and first threads of two blocks) write
// the same element.
__global__ void halve(const float *in, float *out, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        out[i / 2] = in[i];
}

static int cap(int blocks, int most) { return blocks < most ? blocks : most; }

void halve_all(const float *in, float *out, int n, int max_blocks) {
    int threads = 256;
    halve<<<cap((n + threads - 1) / threads, max_blocks), threads>>>(in, out, n);
}
