//xfail:NOT_ALL_VERIFIED
//--blockDim=256 --gridDim=16
// autosync: races=27-28,27-29
// 20_variadic_ok.cu without the barrier: the neighbour cells passed to the variadic
// sum_all (line R1) and mean_of (line R2) are read while their owners store them
// (lines R1, R2).  Missed if a pack element of a call is dropped.

template <typename T>
__device__ T sum_all(T only) {
  return only;
}

template <typename T, typename... Rest>
__device__ T sum_all(T first, Rest... rest) {
  return first + sum_all(rest...);
}

template <typename... Ts>
__device__ float mean_of(Ts... xs) {
  return (xs + ... + 0.0f) / sizeof...(Ts);
}

__global__ void neighbourhood(const float *in, float *out) {
  __shared__ float s[256];
  int t = threadIdx.x;
  int g = blockIdx.x * 256 + t;
  s[t] = in[g];  // R1 R2
  float near = sum_all(s[(t + 255) % 256], s[t], s[(t + 1) % 256]);  // R1
  float wide = mean_of(s[(t + 254) % 256], near, s[(t + 2) % 256]);  // R2
  out[g] = wide;
}
