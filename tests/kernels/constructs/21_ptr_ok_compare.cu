//pass
//--blockDim=128 --gridDim=1
// Pointer comparison: the source may be the destination (an in-place call).  When
// `src == dst` the kernel stages the data through a shared array and a barrier first;
// otherwise it reads the source directly.  Race-free either way.

__device__ void shift(const float *src, float *dst, float *stage, int t) {
  float v;
  if (src == dst) {
    stage[t] = src[t];
    __syncthreads();
    v = stage[(t + 1) % 128];
    __syncthreads();
  } else {
    v = src[(t + 1) % 128];
  }
  dst[t] = v;
}

__global__ void rotate(float *data, float *other, int in_place) {
  __shared__ float a[128];
  __shared__ float b[128];
  __shared__ float stage[128];
  int t = threadIdx.x;
  a[t] = data[t];
  b[t] = 0.0f;
  __syncthreads();
  shift(a, in_place ? a : b, stage, t);
  __syncthreads();
  other[t] = a[t] + b[t];
}
