//xfail:NOT_ALL_VERIFIED
//--blockDim=64 --gridDim=2
// autosync: races=15-18,16-18,17-17
// 22_mathptr_ok.cu without the barrier, and frexpf's exponent stored at i / 2: the stores
// sincosf and modff make through their pointer arguments (lines R1, R2) race with the
// neighbours' reads (line R3), and two threads store the same exponent (line R4).  Missed
// if a call's pointer arguments are not followed as stores.

__global__ void polar(float2 *out, const float *angle, float *frac, int *expo) {
  __shared__ float sines[64];
  __shared__ float whole[64];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float s, c;
  sincosf(angle[i], &s, &c);
  sincosf(angle[i] * 2.0f, &sines[threadIdx.x], &c);  // R1
  frac[i] = modff(angle[i], &whole[threadIdx.x]);  // R2
  frexpf(angle[i], &expo[i / 2]);  // R4
  out[i] = make_float2(s * c + sines[63 - threadIdx.x], whole[(threadIdx.x + 1) % 64]);  // R3
}
