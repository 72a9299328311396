//xfail:NOT_ALL_VERIFIED
//--blockDim=256 --gridDim=16
// autosync: races=22-25,21-25
// 20_auto_ok.cu without the second barrier: 'decltype(s[0]) mine' is float&, so the
// store 'mine = centre' (lines R1, R2) writes s[t] while thread t - 1 reads it as its
// right neighbour (line R1) and thread t + 1 as its left one (line R2).  Missed if
// decltype(s[0]) is taken for a float copy.

template <typename A, typename B>
__device__ auto blend(A a, B b, decltype(a * b) c) -> decltype(a * b + c) {
  return a * b + c;
}

__global__ void average3(const float *in, float *out) {
  __shared__ float s[256];
  auto t = threadIdx.x;
  decltype(t) n = 256;
  auto g = blockIdx.x * n + t;
  s[t] = in[g];
  __syncthreads();
  const auto left = s[(t + n - 1) % n];  // R2
  auto right = s[(t + 1) % n];  // R1
  auto centre = blend(s[t], 0.5f, 0.25f * (left + right));
  decltype(s[0]) mine = s[t];
  mine = centre;  // R1 R2
  __syncthreads();
  decltype(centre + 1.0f) next = s[(t + 1) % n];
  out[g] = centre - next;
}
