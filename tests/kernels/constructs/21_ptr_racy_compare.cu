//xfail:NOT_ALL_VERIFIED
//--blockDim=128 --gridDim=1
// autosync: races=17-19
// 21_ptr_ok_compare.cu with the test inverted (`src != dst`): the in-place call reads
// its neighbour's element of the source directly (line R1) while the neighbour writes it
// as the destination (line R1).  Missed if the comparison is decided as "different
// arrays" without looking at the bases.

__device__ void shift(const float *src, float *dst, float *stage, int t) {
  float v;
  if (src != dst) {
    stage[t] = src[t];
    __syncthreads();
    v = stage[(t + 1) % 128];
    __syncthreads();
  } else {
    v = src[(t + 1) % 128];  // R1
  }
  dst[t] = v;  // R1
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
