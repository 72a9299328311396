//pass
// A 1-D grid-stride loop guarded by i < n: each element is scaled by exactly one thread,
// whatever the launch.  The host caps the grid with a helper it cannot evaluate (min of a
// runtime value), so the grid is symbolic: the proof holds for every grid size.
__global__ void scale(float *d, int n, float a) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        d[i] = a * d[i];
}

static int cap(int blocks, int most) { return blocks < most ? blocks : most; }

void scale_all(float *d, int n, int max_blocks) {
    int threads = 256;
    scale<<<cap((n + threads - 1) / threads, max_blocks), threads>>>(d, n, 2.0f);
}
