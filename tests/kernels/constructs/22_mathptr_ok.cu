//pass
//--blockDim=64 --gridDim=2
// Math functions that answer through pointers: sincosf into two locals and into a shared
// array, modff's whole part into a shared array, frexpf's exponent into global memory.
// Each thread writes only its own elements; the neighbours' are read after the barrier.

__global__ void polar(float2 *out, const float *angle, float *frac, int *expo) {
  __shared__ float sines[64];
  __shared__ float whole[64];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float s, c;
  sincosf(angle[i], &s, &c);
  sincosf(angle[i] * 2.0f, &sines[threadIdx.x], &c);
  frac[i] = modff(angle[i], &whole[threadIdx.x]);
  frexpf(angle[i], &expo[i]);
  __syncthreads();
  out[i] = make_float2(s * c + sines[63 - threadIdx.x], whole[(threadIdx.x + 1) % 64]);
}
