//pass
//--blockDim=256 --gridDim=16
// Skewed scatter to avoid bank conflicts: thread t writes s[(33 t) % 256].  33 is odd, so
// t -> 33 t mod 256 is a permutation and no two threads write one cell; after the barrier
// thread t reads the cell that thread (t + 1) % 256 wrote.  Race-free.

__global__ void skew_scatter(const float *in, float *out) {
  __shared__ float s[256];
  unsigned t = threadIdx.x;
  s[(33 * t) % 256] = in[blockIdx.x * 256 + t];
  __syncthreads();
  out[blockIdx.x * 256 + t] = s[(33 * ((t + 1) % 256)) % 256];
}
