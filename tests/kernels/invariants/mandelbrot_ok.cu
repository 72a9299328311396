//pass
//--blockDim=[16,16] --gridDim=[8,8]
// A Mandelbrot-style escape-time image (our own kernel): each thread owns pixel (x, y)
// and iterates z = z^2 + c until |z| > 2 or the
// iteration cap; the trip count of the inner loop depends on the data.  Each pixel's count
// goes to out[y * W + x], one writer per pixel (x < W, and y * W + x does not wrap).

#include "annotations.h"

#define W 1024

__global__ void mandel(unsigned *out, unsigned h, float x0, float y0, float step,
                       unsigned cap) {
  __requires(h <= 4096);
  unsigned x = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < W && y < h) {
    float cr = x0 + x * step, ci = y0 + y * step;
    float zr = 0.0f, zi = 0.0f;
    unsigned n = 0;
    while (n < cap && zr * zr + zi * zi <= 4.0f) {
      float t = zr * zr - zi * zi + cr;
      zi = 2.0f * zr * zi + ci;
      zr = t;
      n++;
    }
    out[y * W + x] = n;
  }
}
