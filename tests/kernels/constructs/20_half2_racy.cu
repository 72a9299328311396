//xfail:NOT_ALL_VERIFIED
//--blockDim=128 --gridDim=32
// autosync: races=14-16
// 20_half2_ok.cu without the barrier: the read of the partner's packed pair
// stage[t ^ 1] (line R1) races with the partner's __half2 store (line R1).

#include <cuda_fp16.h>

__global__ void mix_half2(const float2 *in, float2 *out, float gain) {
  __shared__ __half2 stage[128];
  int t = threadIdx.x;
  int g = blockIdx.x * 128 + t;
  float2 x = in[g];
  stage[t] = __floats2half2_rn(x.x, x.y);  // R1
  __half2 mine = stage[t];
  __half2 other = stage[t ^ 1];  // R1
  __half2 k = __float2half2_rn(gain);
  __half2 mixed = __hadd2(__hmul2(mine, k), other);
  __half2 both = mixed * k + mine;
  out[g] = make_float2(__low2float(both), __high2float(both));
}
