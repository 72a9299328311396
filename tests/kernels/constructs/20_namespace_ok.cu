//pass
//--blockDim=256 --gridDim=16
// A 5-point smoothing stencil whose helpers live in namespaces: detail::clamp_index and
// detail::taps::weight (a nested namespace) called with '::' qualification, a constant in
// the enclosing namespace, and a global-scope helper called as ::stage.  Thread t stores
// tile[t + 2] and threads 0..3 also store the halo cells; the barrier orders all stores
// before any thread reads tile[t .. t + 4].  Each thread writes only out[g].  Race-free.

namespace smooth {

constexpr int kRadius = 2;

namespace detail {
__device__ inline int clamp_index(int i, int n) { return i < 0 ? 0 : (i >= n ? n - 1 : i); }

namespace taps {
__device__ inline float weight(int k) { return k == 0 ? 0.4f : (k == 1 || k == -1 ? 0.2f : 0.1f); }
}  // namespace taps
}  // namespace detail

__device__ float apply(const float *tile, int centre) {
  float acc = 0.0f;
  for (int k = -kRadius; k <= kRadius; ++k)
    acc += detail::taps::weight(k) * tile[centre + k];
  return acc;
}

}  // namespace smooth

__device__ void stage(float *tile, int slot, const float *in, int i, int n) {
  tile[slot] = in[smooth::detail::clamp_index(i, n)];
}

__global__ void smooth5(const float *in, float *out, int n) {
  __shared__ float tile[256 + 2 * smooth::kRadius];
  int t = threadIdx.x;
  int g = blockIdx.x * 256 + t;
  ::stage(tile, t + smooth::kRadius, in, g, n);
  if (t < 2 * smooth::kRadius) {
    int edge = t < smooth::kRadius ? t : 256 + t;
    ::stage(tile, edge, in, blockIdx.x * 256 - smooth::kRadius + edge, n);
  }
  __syncthreads();
  out[g] = smooth::apply(tile, t + smooth::kRadius);
}
