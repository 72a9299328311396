//xfail:NOT_ALL_VERIFIED
//--blockDim=256 --gridDim=16
// autosync: races=10-10
// 16_loops_ok_modular.cu with an even skew (32): t -> 32 t mod 256 maps threads t and
// t + 8 to the same cell, so they write different values to it (line R1 with itself).

__global__ void skew_scatter(const float *in, float *out) {
  __shared__ float s[256];
  unsigned t = threadIdx.x;
  s[(32 * t) % 256] = in[blockIdx.x * 256 + t];  // R1
  __syncthreads();
  out[blockIdx.x * 256 + t] = s[(32 * ((t + 1) % 256)) % 256];
}
