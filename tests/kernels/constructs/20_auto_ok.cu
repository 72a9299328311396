//pass
//--blockDim=256 --gridDim=16
// 'auto' and 'decltype' in a neighbour-averaging kernel: auto locals deduced from
// threadIdx (unsigned) and from shared cells, a trailing-return-type helper
// 'auto f(...) -> decltype(...)', and 'decltype(s[0])', which is float& -- so 'mine'
// is a reference into shared memory and the store through it writes s[t].  The first
// barrier orders the loads before the neighbour reads, the second orders the neighbour
// reads before the store through 'mine', the third orders that store before the last
// read of the right neighbour.  Race-free.

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
  const auto left = s[(t + n - 1) % n];
  auto right = s[(t + 1) % n];
  auto centre = blend(s[t], 0.5f, 0.25f * (left + right));
  __syncthreads();
  decltype(s[0]) mine = s[t];
  mine = centre;
  __syncthreads();
  decltype(centre + 1.0f) next = s[(t + 1) % n];
  out[g] = centre - next;
}
