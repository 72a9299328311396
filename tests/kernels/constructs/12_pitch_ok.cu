//pass
//--blockDim=[32,8] --gridDim=[8,32]
// Pitched 2-D image (cudaMallocPitch style): row y starts at (char *)img + y * pitch.
// With pitch == 1024 bytes and width 256 floats (1024 bytes) the rows are disjoint, so
// every thread writes its own pixel.  Race-free.

#include "../annotations.h"

__global__ void threshold(float *img, size_t pitch, float level) {
  __requires(pitch == 1024);
  unsigned x = blockIdx.x * 32 + threadIdx.x;
  unsigned y = blockIdx.y * 8 + threadIdx.y;
  float *row = (float *)((char *)img + y * pitch);
  row[x] = row[x] > level ? 1.0f : 0.0f;
}
