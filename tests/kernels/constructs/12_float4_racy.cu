//xfail:NOT_ALL_VERIFIED
//--blockDim=128 --gridDim=8
// autosync: races=11-12
// 12_float4_ok.cu without the barrier: the scalar read s[4t + 5] (line R1) overlaps the
// float4 store of thread t + 1 (line R1).  Missed by a model that treats the float4
// store as a store of one float to s[t] or s[4t].

__global__ void vec_then_scalar(const float4 *in, float *out) {
  __shared__ float s[512];
  unsigned t = threadIdx.x;
  ((float4 *)s)[t] = in[blockIdx.x * 128 + t];  // R1
  out[blockIdx.x * 128 + t] = s[(4 * t + 5) % 512];  // R1
}
