//xfail:NOT_ALL_VERIFIED
//--blockDim=128 --gridDim=4
// autosync: races=22-23,22-24
// 03_tpl_vec_ok.cu without the barrier: thread t reads tile[(t + 1) % 128 * W] while
// thread t + 1 writes it (the write is in the loop over Vec<T, W>::SIZE).

template <typename T, int N> struct Vec {
  static const int SIZE = N;
  T v[N];
};

template <class T> __device__ T max_of(T a, T b) { return a > b ? a : b; }
template <class T> __device__ T scale(T a) { return a * 2; }
template <> __device__ float scale<float>(float a) { return a * 0.5f; }

template <typename T, int W = 2>
__global__ void pairmax(const T *in, T *out) {
  __shared__ T tile[128 * Vec<T, W>::SIZE];
  int t = threadIdx.x;
  const T *src = in + (blockIdx.x * 128 + t) * W;
  for (int k = 0; k < Vec<T, W>::SIZE; ++k)
    tile[t * W + k] = src[k];
  T a = tile[(t + 1) % 128 * W];
  T b = tile[(t + 1) % 128 * W + 1];
  out[blockIdx.x * 128 + t] = scale<T>(max_of(a, b));
}

template __global__ void pairmax<float>(const float *, float *);
