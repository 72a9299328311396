//pass
//--blockDim=64 --gridDim=8
// typedef, vector types and their fields, make_float4, brace initializers.

typedef unsigned int uint;
typedef float4 pixel_t;

__global__ void vector_mix(const uint4 *in, pixel_t *out) {
  __shared__ float3 acc[64];
  uint tid = threadIdx.x;
  uint4 q = in[blockIdx.x * 64 + tid];
  float3 c = {0, 0, 0};
  c.x = (float)q.x;
  c.y = (float)(q.y + q.w);
  c.z = (float)q.z;
  acc[tid] = c;
  __syncthreads();
  float3 o = acc[(tid + 32) % 64];
  out[blockIdx.x * 64 + tid] = make_float4(o.x, o.y, o.z, 1.0f);
}
