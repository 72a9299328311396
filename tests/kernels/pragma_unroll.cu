//pass
//--blockDim=128 --gridDim=16
// A constant-trip loop with #pragma unroll and a barrier per iteration.

__global__ void smooth4(float *data) {
  __shared__ float s[130];
  int tid = threadIdx.x;
  int gid = blockIdx.x * 128 + tid;
  float v = data[gid];
  if (tid == 0) {
    s[0] = 0.0f;
    s[129] = 0.0f;
  }
#pragma unroll
  for (int k = 0; k < 4; k++) {
    s[tid + 1] = v;
    __syncthreads();
    v = 0.25f * s[tid] + 0.5f * s[tid + 1] + 0.25f * s[tid + 2];
    __syncthreads();
  }
  data[gid] = v;
}
