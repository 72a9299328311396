//pass
//--local_size=[8,8] --num_groups=[80,60]
// autosync: min_barriers=1 original_barriers=1
// Non-local-means denoising, "NLM2" variant, as its CUDA twin
// (../imageDenoising_nlm2_kernel.cu), in OpenCL C: the group-to-group similarity weights
// are computed once per group (one per work-item of an 8x8 group) and shared through local
// memory, then every pixel filters its window with those weights.  The CUDA twin's
// texture is a read-only image here, read through a sampler with the texture's settings
// (unnormalised coordinates, clamped to the edge, nearest pixel).

#define BLOCKDIM_X 8
#define BLOCKDIM_Y 8
#define NLM_WINDOW_RADIUS 3
#define NLM_BLOCK_RADIUS 3
#define NLM_WINDOW_AREA ((2 * NLM_WINDOW_RADIUS + 1) * (2 * NLM_WINDOW_RADIUS + 1))
#define INV_NLM_WINDOW_AREA (1.0f / (float)NLM_WINDOW_AREA)
#define NLM_WEIGHT_THRESHOLD 0.10f
#define NLM_LERP_THRESHOLD 0.10f

typedef unsigned int TColor;

__constant sampler_t texSampler = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_NEAREST;

float lerpf(float a, float b, float c) { return a + (b - a) * c; }

float vecLen(float4 a, float4 b) {
  return (b.x - a.x) * (b.x - a.x) + (b.y - a.y) * (b.y - a.y) + (b.z - a.z) * (b.z - a.z);
}

float4 fetchColor(read_only image2d_t image, float x, float y) {
  uint4 c = read_imageui(image, texSampler, (float2)(x, y));
  return (float4)(c.x / 255.0f, c.y / 255.0f, c.z / 255.0f, 0.0f);
}

TColor make_color(float r, float g, float b, float a) {
  return ((int)(a * 255.0f) << 24) | ((int)(b * 255.0f) << 16) | ((int)(g * 255.0f) << 8) | ((int)(r * 255.0f) << 0);
}

__kernel void NLM2(__global TColor *dst, read_only image2d_t image, int imageW, int imageH, float Noise,
                   float lerpC) {
  __requires(imageW == 640);
  __requires(imageH == 480);

  // weights of the group-to-group comparison, one per work-item of the group
  __local float fWeights[BLOCKDIM_X * BLOCKDIM_Y];

  const int ix = get_local_size(0) * get_group_id(0) + get_local_id(0);
  const int iy = get_local_size(1) * get_group_id(1) + get_local_id(1);
  const float x = (float)ix + 0.5f;
  const float y = (float)iy + 0.5f;
  // the centre of this group's window
  const int cx = get_local_size(0) * get_group_id(0) + NLM_WINDOW_RADIUS;
  const int cy = get_local_size(0) * get_group_id(1) + NLM_WINDOW_RADIUS;

  if (ix < imageW && iy < imageH) {
    // distance between the block around (cx, cy) and the block around this work-item's
    // offset from it, accumulated over the comparison block
    float weight = 0;
    for (float n = -NLM_BLOCK_RADIUS; n <= NLM_BLOCK_RADIUS; n++)
      for (float m = -NLM_BLOCK_RADIUS; m <= NLM_BLOCK_RADIUS; m++)
        weight += vecLen(fetchColor(image, cx + m, cy + n),
                         fetchColor(image, x + m, y + n));

    // geometric distance from the window centre
    float dist = ((int)get_local_id(0) - NLM_WINDOW_RADIUS) * ((int)get_local_id(0) - NLM_WINDOW_RADIUS) +
                 ((int)get_local_id(1) - NLM_WINDOW_RADIUS) * ((int)get_local_id(1) - NLM_WINDOW_RADIUS);

    // the combined weight of this offset
    fWeights[get_local_id(1) * BLOCKDIM_X + get_local_id(0)] = native_exp(-(weight * Noise + dist * INV_NLM_WINDOW_AREA));
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  // (all weights must be in local memory before anyone filters with them)

  if (ix < imageW && iy < imageH) {
    float fCount = 0;
    float sumWeights = 0;
    float3 clr = (float3)(0.0f, 0.0f, 0.0f);
    int idx = 0;

    // cycle through the NLM window around (x, y), reusing the shared weights
    for (float i = -NLM_WINDOW_RADIUS; i <= NLM_WINDOW_RADIUS + 1; i++) {
      for (float j = -NLM_WINDOW_RADIUS; j <= NLM_WINDOW_RADIUS + 1; j++) {
        float weightIJ = fWeights[idx++];
        float4 clrIJ = fetchColor(image, x + j, y + i);
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
    float4 clr00 = fetchColor(image, x, y);
    clr.x = lerpf(clr.x, clr00.x, lerpQ);
    clr.y = lerpf(clr.y, clr00.y, lerpQ);
    clr.z = lerpf(clr.z, clr00.z, lerpQ);
    dst[imageW * iy + ix] = make_color(clr.x, clr.y, clr.z, 0);
  }
}
