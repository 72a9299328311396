//pass
//--blockDim=256 --gridDim=64
// autosync: min_barriers=3 original_barriers=4
// Block sum whose last six steps (off = 32 .. 1) only ever involve warp 0, written the
// legacy-safe way: every step synchronises the whole block with a block barrier.  Written
// for this project.  `autosync compare` keeps the block barriers the first loop and its exit
// need and replaces the tail's two by one __syncwarp() at the top of the loop body (the
// tail's reads go to a register, so only consecutive steps race, and only within warp 0).

__global__ void reduce_tail(const float *in, float *out) {
  __shared__ float s[256];
  unsigned t = threadIdx.x;
  s[t] = in[blockIdx.x * 256 + t];
  __syncthreads();
  for (unsigned half = 128; half > 32; half >>= 1) {
    if (t < half)
      s[t] += s[t + half];
    __syncthreads();
  }
  for (unsigned off = 32; off > 0; off >>= 1) {
    float v = 0.0f;
    if (t < off)
      v = s[t] + s[t + off];
    __syncthreads();
    if (t < off)
      s[t] = v;
    __syncthreads();
  }
  if (t == 0)
    out[blockIdx.x] = s[0];
}
