//xfail:NOT_ALL_VERIFIED
//--blockDim=[16,16] --gridDim=[4,4]
// autosync: races=27-34
// 11_texture_ok.cu without the barrier: thread (tx, ty) reads tile[ty][tx + k] (line R1
// read) while thread (tx + k, ty) writes it (line R1 write, the __CUDA_ARCH__ branch).

#include "cuda_runtime.h"
#include "../annotations.h"

const int RADIUS = 2;
__constant__ float c_weights[2 * RADIUS + 1];

__device__ float fetch(cudaTextureObject_t tex, float x, float y, const float *bias = NULL) {
  float v = tex2D<float>(tex, x + 0.5f, y + 0.5f);
  if (bias)
    v += *bias;
  return v;
}

__global__ void blur_rows(cudaTextureObject_t tex, const float *bias, float *out, int width) {
  __requires(width == 64);
  __shared__ float tile[16][16];
  int tx = threadIdx.x, ty = threadIdx.y;
  int x = blockIdx.x * 16 + tx;
  int y = blockIdx.y * 16 + ty;
#ifdef __CUDA_ARCH__
  tile[ty][tx] = fetch(tex, x, y, bias);  // R1
#else
  tile[ty][tx] = fetch(tex, x, y);
#endif
  float acc = 0.0f;
  for (int k = -RADIUS; k <= RADIUS; ++k) {
    int c = tx + k;
    float v = (c >= 0 && c < 16) ? tile[ty][c] : fetch(tex, x + k, y);  // R1
    acc += c_weights[k + RADIUS] * v;
  }
  out[y * width + x] = acc;
}
