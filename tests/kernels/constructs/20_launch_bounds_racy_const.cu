//xfail:NOT_ALL_VERIFIED
//--gridDim=16
// autosync: races=14-16,15-16
// 20_launch_bounds_ok_const.cu without the barrier: thread t reads s[2t] and s[2t + 1]
// (line R1) while their owners store them (lines R1, R2; the pairs cross the halves).
// blockDim = 128 from __launch_bounds__(kThreads).

constexpr int kThreads = 128;

__global__ void __launch_bounds__(kThreads) pair_sums(const float *in, float *out) {
  __shared__ float s[2 * kThreads];
  int t = threadIdx.x;
  const float *src = in + blockIdx.x * 2 * kThreads;
  s[t] = src[t];  // R1
  s[t + kThreads] = src[t + kThreads];  // R2
  out[blockIdx.x * kThreads + t] = s[2 * t] + s[2 * t + 1];  // R1 R2
}
