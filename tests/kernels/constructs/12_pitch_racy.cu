//xfail:NOT_ALL_VERIFIED
//--blockDim=[32,8] --gridDim=[8,32]
// autosync: races=16-16
// 12_pitch_ok.cu with the pitch passed in FLOATS where bytes are expected (a classic
// bug): pitch == 256 bytes, so row y + 1 starts 64 floats after row y and pixel (x, y)
// for x >= 64 is pixel (x - 64, y + 1).  Two threads of different blocks read and write
// the same float (line R1 with itself).

#include "../annotations.h"

__global__ void threshold(float *img, size_t pitch, float level) {
  __requires(pitch == 256);
  unsigned x = blockIdx.x * 32 + threadIdx.x;
  unsigned y = blockIdx.y * 8 + threadIdx.y;
  float *row = (float *)((char *)img + y * pitch);
  row[x] = row[x] > level ? 1.0f : 0.0f;  // R1
}
