//xfail:NOT_ALL_VERIFIED
//--blockDim=[16,16] --gridDim=[4,4]
// autosync: races=14-14
// nvcc_texture_ok.cu where every thread of a row writes the row's first cell.

texture<uchar4, 2, cudaReadModeNormalizedFloat> picture;

__device__ float brightness(float4 c) { return (c.x + c.y + c.z) / 3.0f; }

__global__ void grey(float *out) {
  const int width = 64;
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  out[y * width] = brightness(tex2D(picture, x + 0.5f, y + 0.5f));
}
