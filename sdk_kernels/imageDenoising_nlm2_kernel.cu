//pass
//--blockDim=[8,8] --gridDim=[80,60]
// autosync: min_barriers=1 original_barriers=1
// Non-local-means denoising, "NLM2" variant: the block-to-block similarity weights are
// computed once per block (one per thread of an 8x8 block) and shared through shared
// memory, then every pixel filters its window with those weights.

#include "annotations.h"

#define BLOCKDIM_X 8
#define BLOCKDIM_Y 8
#define NLM_WINDOW_RADIUS 3
#define NLM_BLOCK_RADIUS 3
#define NLM_WINDOW_AREA ((2 * NLM_WINDOW_RADIUS + 1) * (2 * NLM_WINDOW_RADIUS + 1))
#define INV_NLM_WINDOW_AREA (1.0f / (float)NLM_WINDOW_AREA)
#define NLM_WEIGHT_THRESHOLD 0.10f
#define NLM_LERP_THRESHOLD 0.10f

typedef unsigned int TColor;

texture<uchar4, 2, cudaReadModeElementType> texImage;

__device__ float lerpf(float a, float b, float c) { return a + (b - a) * c; }

__device__ float vecLen(float4 a, float4 b) {
  return (b.x - a.x) * (b.x - a.x) + (b.y - a.y) * (b.y - a.y) + (b.z - a.z) * (b.z - a.z);
}

__device__ float4 fetchColor(float x, float y) {
  uchar4 c = tex2D(texImage, x, y);
  return make_float4(c.x / 255.0f, c.y / 255.0f, c.z / 255.0f, 0.0f);
}

__device__ TColor make_color(float r, float g, float b, float a) {
  return ((int)(a * 255.0f) << 24) | ((int)(b * 255.0f) << 16) | ((int)(g * 255.0f) << 8) | ((int)(r * 255.0f) << 0);
}

__global__ void NLM2(TColor *dst, int imageW, int imageH, float Noise, float lerpC) {
  __requires(imageW == 640);
  __requires(imageH == 480);

  // weights of the block-to-block comparison, one per thread of the block
  __shared__ float fWeights[BLOCKDIM_X * BLOCKDIM_Y];

  const int ix = blockDim.x * blockIdx.x + threadIdx.x;
  const int iy = blockDim.y * blockIdx.y + threadIdx.y;
  const float x = (float)ix + 0.5f;
  const float y = (float)iy + 0.5f;
  // the centre of this block's window
  const int cx = blockDim.x * blockIdx.x + NLM_WINDOW_RADIUS;
  const int cy = blockDim.x * blockIdx.y + NLM_WINDOW_RADIUS;

  if (ix < imageW && iy < imageH) {
    // distance between the block around (cx, cy) and the block around this thread's
    // offset from it, accumulated over the comparison block
    float weight = 0;
    for (float n = -NLM_BLOCK_RADIUS; n <= NLM_BLOCK_RADIUS; n++)
      for (float m = -NLM_BLOCK_RADIUS; m <= NLM_BLOCK_RADIUS; m++)
        weight += vecLen(fetchColor(cx + m, cy + n), fetchColor(x + m, y + n));

    // geometric distance from the window centre
    float dist = (threadIdx.x - NLM_WINDOW_RADIUS) * (threadIdx.x - NLM_WINDOW_RADIUS) +
                 (threadIdx.y - NLM_WINDOW_RADIUS) * (threadIdx.y - NLM_WINDOW_RADIUS);

    // the combined weight of this offset
    fWeights[threadIdx.y * BLOCKDIM_X + threadIdx.x] = __expf(-(weight * Noise + dist * INV_NLM_WINDOW_AREA));
  }
  __syncthreads();
  // (all weights must be in shared memory before anyone filters with them)

  if (ix < imageW && iy < imageH) {
    float fCount = 0;
    float sumWeights = 0;
    float3 clr = {0, 0, 0};
    int idx = 0;

    // cycle through the NLM window around (x, y), reusing the shared weights
    for (float i = -NLM_WINDOW_RADIUS; i <= NLM_WINDOW_RADIUS + 1; i++) {
      for (float j = -NLM_WINDOW_RADIUS; j <= NLM_WINDOW_RADIUS + 1; j++) {
        float weightIJ = fWeights[idx++];
        float4 clrIJ = fetchColor(x + j, y + i);
        clr.x += clrIJ.x * weightIJ;
        clr.y += clrIJ.y * weightIJ;
        clr.z += clrIJ.z * weightIJ;
        sumWeights += weightIJ;
        fCount += (weightIJ > NLM_WEIGHT_THRESHOLD) ? INV_NLM_WINDOW_AREA : 0;
      }
    }

    // normalise the result and blend with the original pixel for low-noise areas
    sumWeights = 1.0f / sumWeights;
    clr.x *= sumWeights;
    clr.y *= sumWeights;
    clr.z *= sumWeights;
    float lerpQ = (fCount > NLM_LERP_THRESHOLD) ? lerpC : 1.0f - lerpC;
    float4 clr00 = fetchColor(x, y);
    clr.x = lerpf(clr.x, clr00.x, lerpQ);
    clr.y = lerpf(clr.y, clr00.y, lerpQ);
    clr.z = lerpf(clr.z, clr00.z, lerpQ);
    dst[imageW * iy + ix] = make_color(clr.x, clr.y, clr.z, 0);
  }
}
