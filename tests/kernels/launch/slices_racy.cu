//xfail:NOT_ALL_VERIFIED
// The racy twin of slices_ok.cu: the host launches one block more than there are slices, so
// the last block and block 0 scale the same slice (a race between blocks, in global memory).
#define SLICE 128

__global__ void scale_slices(float *a, int slices, float f) {
    int s = blockIdx.x % slices;
    for (int i = threadIdx.x; i < SLICE; i += blockDim.x)
        a[s * SLICE + i] *= f;
}

void scale_all(float *a, int n, float f) {
    int slices = (n + SLICE - 1) / SLICE;
    dim3 grid(slices + 1);  // one block too many: it shares slice 0 with block 0
    scale_slices<<<grid, SLICE>>>(a, slices, f);
}
