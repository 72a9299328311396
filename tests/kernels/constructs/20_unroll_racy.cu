//xfail:NOT_ALL_VERIFIED
//--blockDim=256 --gridDim=16
// autosync: races=17-21
// 20_unroll_ok.cu without the barrier after the unrolled staging loop: thread t reads
// s[4t + k] in the '#pragma unroll 4' loop (line R1) while another thread stores it in
// the fully unrolled loop (line R1).  Missed if an unrolled body is dropped.

#define ITEMS 4

__global__ void unrolled_sum(const float *in, float *out) {
  __shared__ float s[256 * ITEMS];
  __shared__ float red[256];
  int t = threadIdx.x;
  const float *src = in + blockIdx.x * 256 * ITEMS;
#pragma unroll
  for (int k = 0; k < ITEMS; ++k)
    s[t + 256 * k] = src[t + 256 * k];  // R1
  float acc = 0.0f;
#pragma unroll 4
  for (int k = 0; k < ITEMS; ++k)
    acc += s[ITEMS * t + k] * (k + 1);  // R1
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
