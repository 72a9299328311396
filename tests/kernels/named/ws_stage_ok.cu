//pass
//--blockDim=128 --gridDim=8
// Warp-specialised staging (our own): warps 0-1 load a tile into shared memory, warps 2-3
// scale it out.  Nothing orders the two groups, and a __syncthreads() inside either arm
// would be divergent: the named-barrier pair orders them (bar.arrive / bar.sync, 128 threads).

__global__ void ws_stage(const float *in, float *out, float scale) {
  __shared__ float tile[64];
  int tid = threadIdx.x;
  if (tid < 64) {
    tile[tid] = in[blockIdx.x * 64 + tid];
    asm volatile("bar.arrive 1, 128;");
  } else {
    int i = tid - 64;
    asm volatile("bar.sync 1, 128;");
    float v;
    v = tile[63 - i] * scale;
    out[blockIdx.x * 64 + i] = v;
  }
}
