//xfail:NOT_ALL_VERIFIED
// The racy twin of two_shapes_ok.cu: rows are laid out 32 wide whatever the block's width.
// Under the 32 x 8 launch that is right; under the 64 x 4 launch thread (32, 0) and thread
// (0, 1) store to the same s[32]: only the second launch races.
__global__ void row_sums(const float *in, float *out) {
    __shared__ float s[256];
    int t = threadIdx.y * 32 + threadIdx.x;
    s[t] = in[blockIdx.x * 256 + threadIdx.y * blockDim.x + threadIdx.x];
    __syncthreads();
    if (threadIdx.x == 0) {
        float acc = 0.0f;
        for (int j = 0; j < 32; j++)
            acc += s[threadIdx.y * 32 + j];
        out[blockIdx.x * blockDim.y + threadIdx.y] = acc;
    }
}

void sums(const float *in, float *wide, float *flat, int blocks) {
    row_sums<<<blocks, dim3(32, 8)>>>(in, wide);
    row_sums<<<blocks, dim3(64, 4)>>>(in, flat);
}
