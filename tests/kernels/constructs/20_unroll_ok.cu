//pass
//--blockDim=256 --gridDim=16
// '#pragma unroll' loops: each thread moves 4 elements (a fully unrolled loop with a
// strided layout), reads 4 consecutive elements after the barrier ('#pragma unroll 4'
// over a constant trip count), then a tree reduction of the per-thread sums whose loop
// holds a barrier ('#pragma unroll' over the halving steps) and a '#pragma unroll 1'
// loop that stays rolled.  Stores s[t + 256k] before the barrier, reads s[4t + k] after
// it; in the tree, one writer per cell per step with a barrier after each.  Race-free.

#define ITEMS 4

__global__ void unrolled_sum(const float *in, float *out) {
  __shared__ float s[256 * ITEMS];
  __shared__ float red[256];
  int t = threadIdx.x;
  const float *src = in + blockIdx.x * 256 * ITEMS;
#pragma unroll
  for (int k = 0; k < ITEMS; ++k)
    s[t + 256 * k] = src[t + 256 * k];
  __syncthreads();
  float acc = 0.0f;
#pragma unroll 4
  for (int k = 0; k < ITEMS; ++k)
    acc += s[ITEMS * t + k] * (k + 1);
  red[t] = acc;
  __syncthreads();
#pragma unroll
  for (int half = 128; half > 0; half >>= 1) {
    if (t < half)
      red[t] += red[t + half];
    __syncthreads();
  }
  float scale = 1.0f;
#pragma unroll 1
  for (int k = 0; k < ITEMS; ++k)
    scale *= 0.5f;
  if (t == 0)
    out[blockIdx.x] = red[0] * scale;
}
