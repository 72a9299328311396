//pass
//--blockDim=[16,16] --gridDim=[4,4]
// A texture of uchar4 read in cudaReadModeNormalizedFloat: tex2D returns a float4 (each
// channel scaled to [0, 1]), which the file hands to its own float4 function.

texture<uchar4, 2, cudaReadModeNormalizedFloat> picture;

__device__ float brightness(float4 c) { return (c.x + c.y + c.z) / 3.0f; }

__global__ void grey(float *out) {
  const int width = 64;
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  out[y * width + x] = brightness(tex2D(picture, x + 0.5f, y + 0.5f));
}
