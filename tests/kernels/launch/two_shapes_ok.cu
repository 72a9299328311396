//pass
// One kernel launched with two block shapes (32 x 8 and 16 x 16, 256 threads each): each row of
// the block sums its blockDim.x elements.  Both launches are checked, each under its own shape.
__global__ void row_sums(const float *in, float *out) {
    __shared__ float s[256];
    int t = threadIdx.y * blockDim.x + threadIdx.x;
    s[t] = in[blockIdx.x * 256 + t];
    __syncthreads();
    if (threadIdx.x == 0) {
        float acc = 0.0f;
        for (int j = 0; j < blockDim.x; j++)
            acc += s[threadIdx.y * blockDim.x + j];
        out[blockIdx.x * blockDim.y + threadIdx.y] = acc;
    }
}

void sums(const float *in, float *wide, float *square, int blocks) {
    row_sums<<<blocks, dim3(32, 8)>>>(in, wide);
    row_sums<<<blocks, dim3(16, 16)>>>(in, square);
}
