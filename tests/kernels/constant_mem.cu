//pass
//--blockDim=128 --gridDim=16
// A 3-tap filter whose weights live in __constant__ memory.

__constant__ float c_weights[3];
__constant__ int c_offsets[3] = {-1, 0, 1};

__global__ void filter3(const float *in, float *out) {
  __shared__ float s[130];
  int tid = threadIdx.x;
  int gid = blockIdx.x * 128 + tid;
  s[tid + 1] = in[gid];
  if (tid == 0) {
    s[0] = 0.0f;
    s[129] = 0.0f;
  }
  __syncthreads();
  float acc = 0.0f;
  for (int k = 0; k < 3; k++)
    acc += c_weights[k] * s[tid + 1 + c_offsets[k]];
  out[gid] = acc;
}
