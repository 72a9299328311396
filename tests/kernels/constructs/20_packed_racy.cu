//xfail:NOT_ALL_VERIFIED
//--blockDim=128 --gridDim=32
// autosync: races=24-30
// 20_packed_ok.cu without the barrier after staging: thread t's 128-bit load of the
// mirrored slots of tile (line R1, inside Packed128<T>::load) races with thread 127-t's
// 128-bit store of them (line R1, inside Packed128<T>::store), both methods defined
// outside the class template.

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
  *reinterpret_cast<float4 *>(p.lanes) = *reinterpret_cast<const float4 *>(src);  // R1
  return p;
}

template <typename T>
__device__ void Packed128<T>::store(T *dst) const {
  *reinterpret_cast<float4 *>(dst) = *reinterpret_cast<const float4 *>(lanes);  // R1
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
  f128 w = f128::load(tile + (127 - t) * f128::kCount);
  for (int k = 0; k < f128::kCount; ++k)
    w[k] = w[k] * gain;
  w.store(out + base);
}
