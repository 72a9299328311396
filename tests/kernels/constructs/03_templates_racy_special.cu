//xfail:NOT_ALL_VERIFIED
//--blockDim=128 --gridDim=16
// autosync: races=18-25
// 03_templates_ok_special.cu without the barrier: thread t reads tile[t + R + k] for
// k = -R..R, the cells written (line R1) by threads t - R .. t + R.

template <int R> __device__ float weight() { return 1.0f / (2 * R + 1); }
template <> __device__ float weight<0>() { return 1.0f; }

template <class T> __device__ T load(const T *p, int i) { return p[i]; }
template <class T> __device__ T load(const T *p, int i, int stride) { return p[i * stride]; }

template <int R>
__global__ void box_filter(const float *in, float *out, int n) {
  __shared__ float tile[128 + 2 * R];
  int t = threadIdx.x;
  int g = blockIdx.x * 128 + t;
  tile[t + R] = load(in, g);  // R1
  if (t < R) {
    tile[t] = g >= R ? load(in, g - R, 1) : 0.0f;
    tile[t + 128 + R] = g + 128 < n ? load(in, g + 128, 1) : 0.0f;
  }
  float acc = 0.0f;
  for (int k = -R; k <= R; ++k)
    acc += tile[t + R + k];  // R1
  out[g] = acc * weight<R>();
}

template __global__ void box_filter<2>(const float *, float *, int);
