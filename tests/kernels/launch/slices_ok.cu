//pass
// Each block scales one slice of SLICE elements; a block finds its slice as blockIdx.x modulo
// the number of slices.  That is race-free only because the host launches exactly one block
// per slice (gridDim.x == slices, computed from the problem size n): with more blocks, two
// blocks would share a slice.  The relation comes from the host function below.
#define SLICE 128

__global__ void scale_slices(float *a, int slices, float f) {
    int s = blockIdx.x % slices;
    for (int i = threadIdx.x; i < SLICE; i += blockDim.x)
        a[s * SLICE + i] *= f;
}

void scale_all(float *a, int n, float f) {
    int slices = (n + SLICE - 1) / SLICE;
    dim3 grid(slices);
    scale_slices<<<grid, SLICE>>>(a, slices, f);
}
