//pass
//--blockDim=128 --gridDim=32
// A 128-bit packed vector type as llm.c-style code writes it: a class template over
// float4-sized storage with a defaulted constructor and its load/store/element methods
// defined outside the class.  Each thread moves 4 floats with one 128-bit load into the
// shared tile (slots 4t..4t+3), the barrier orders those stores before thread t loads the
// mirrored slots 4(127-t)..4(127-t)+3, and each thread writes only its own 4 outputs.
// Race-free.

template <typename T>
struct alignas(16) Packed128 {
  static constexpr int kCount = sizeof(float4) / sizeof(T);

  Packed128() = default;
  __device__ static Packed128 load(const T *src);
  __device__ void store(T *dst) const;
  __device__ T &operator[](int i);

  T lanes[kCount];
};

template <typename T>
__device__ Packed128<T> Packed128<T>::load(const T *src) {
  Packed128<T> p;
  *reinterpret_cast<float4 *>(p.lanes) = *reinterpret_cast<const float4 *>(src);
  return p;
}

template <typename T>
__device__ void Packed128<T>::store(T *dst) const {
  *reinterpret_cast<float4 *>(dst) = *reinterpret_cast<const float4 *>(lanes);
}

template <typename T>
__device__ T &Packed128<T>::operator[](int i) {
  return lanes[i];
}

using f128 = Packed128<float>;

__global__ void mirror_scale(const float *in, float *out, float gain) {
  __shared__ alignas(16) float tile[128 * f128::kCount];
  int t = threadIdx.x;
  int base = (blockIdx.x * 128 + t) * f128::kCount;
  f128 v = f128::load(in + base);
  v.store(tile + t * f128::kCount);
  __syncthreads();
  f128 w = f128::load(tile + (127 - t) * f128::kCount);
  for (int k = 0; k < f128::kCount; ++k)
    w[k] = w[k] * gain;
  w.store(out + base);
}
