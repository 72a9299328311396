//pass
//--gridDim=16
// __launch_bounds__ with a named constant (kThreads = 128) and no blockDim in the flags
// line: the bound gives blockDim = 128.  Each thread stages two elements, s[t] and
// s[t + kThreads], so the halves are disjoint only when blockDim <= 128 (with 256
// threads, thread t + 128 would store s[t + 128] too).  The barrier orders the stores
// before thread t reads s[2t] and s[2t + 1].  Race-free under the bound.

constexpr int kThreads = 128;

__global__ void __launch_bounds__(kThreads) pair_sums(const float *in, float *out) {
  __shared__ float s[2 * kThreads];
  int t = threadIdx.x;
  const float *src = in + blockIdx.x * 2 * kThreads;
  s[t] = src[t];
  s[t + kThreads] = src[t + kThreads];
  __syncthreads();
  out[blockIdx.x * kThreads + t] = s[2 * t] + s[2 * t + 1];
}
