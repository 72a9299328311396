//pass
//--blockDim=128 --gridDim=4
// A data-only class template Vec<T, N> with a static const int member used as a size, a
// default template argument (W = 2), a __device__ function template called with deduced
// arguments (max_of(a, b) with float a, b) and an explicit specialisation of a function
// template (scale<float>).  Thread t owns tile[t * W .. t * W + W - 1]; after the barrier
// it reads its neighbour's cells.  Race-free.

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
  __syncthreads();
  T a = tile[(t + 1) % 128 * W];
  T b = tile[(t + 1) % 128 * W + 1];
  out[blockIdx.x * 128 + t] = scale<T>(max_of(a, b));
}

template __global__ void pairmax<float>(const float *, float *);
