//pass
//--blockDim=[16,16] --gridDim=[32,32]
// A Sobel edge filter over a shared tile with a one-pixel halo (our own kernel): the
// 18 x 18 tile is loaded by a tid-strided loop over its 324 cells, then after a barrier
// each thread reads its 3 x 3 neighbourhood and writes one output pixel.  The loading loop
// writes cell c from thread c % 256 only.

#define TW 16
#define HW (TW + 2)
#define IMG 512

__global__ void sobel(float *out, const float *in) {
  __shared__ float tile[HW * HW];
  unsigned tx = threadIdx.x, ty = threadIdx.y;
  unsigned tid = ty * TW + tx;
  int bx = blockIdx.x * TW - 1, by = blockIdx.y * TW - 1;
  for (unsigned c = tid; c < HW * HW; c += TW * TW) {
    int gx = bx + (int)(c % HW), gy = by + (int)(c / HW);
    gx = min(max(gx, 0), IMG - 1);
    gy = min(max(gy, 0), IMG - 1);
    tile[c] = in[gy * IMG + gx];
  }
  __syncthreads();
  unsigned x = tx + 1, y = ty + 1;
  float gxs = tile[(y - 1) * HW + x + 1] + 2 * tile[y * HW + x + 1] + tile[(y + 1) * HW + x + 1]
            - tile[(y - 1) * HW + x - 1] - 2 * tile[y * HW + x - 1] - tile[(y + 1) * HW + x - 1];
  float gys = tile[(y + 1) * HW + x - 1] + 2 * tile[(y + 1) * HW + x] + tile[(y + 1) * HW + x + 1]
            - tile[(y - 1) * HW + x - 1] - 2 * tile[(y - 1) * HW + x] - tile[(y - 1) * HW + x + 1];
  out[(blockIdx.y * TW + ty) * IMG + blockIdx.x * TW + tx] = sqrtf(gxs * gxs + gys * gys);
}
