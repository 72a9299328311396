//xfail:NOT_ALL_VERIFIED
//--blockDim=128 --gridDim=2
// autosync: races=26-29
// 11_nullptr_ok_cxx.cu without the barrier, and the store moved into the `!scale` branch:
// the write s[t] (line 26, only when the kernel gets scale == NULL) races with the
// neighbour read (line 29).  Missed if a null test on a parameter is taken as true.
// A default argument `= NULL`, null tests on pointer parameters (a kernel pointer may be
// NULL: both branches are explored), a __constant__ array, a file-scope const int, and a
// texture object read (read-only: never a race).  Each thread writes only s[t]; the
// barrier orders the writes before the neighbour reads.  Race-free.

const int W = 3;
__constant__ float weights[W] = {0.25f, 0.5f, 0.25f};

__device__ float scaled(float v, const float *scale = NULL) {
  if (scale != NULL)
    v *= scale[0];
  return v;
}

__global__ void smooth(cudaTextureObject_t tex, const float *scale, float *out) {
  __shared__ float s[128];
  int t = threadIdx.x;
  float v = scaled(tex1Dfetch<float>(tex, blockIdx.x * 128 + t), scale);
  if (!scale)
    s[t] = scaled(v);
  float acc = 0.0f;
  for (int k = 0; k < W; ++k)
    acc += weights[k] * s[(t + k) % 128];
  out[blockIdx.x * 128 + t] = acc;
}
