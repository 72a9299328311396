//pass
//--blockDim=64 --gridDim=4
// A float loop counter and CUDA math intrinsics.

__global__ void float_loop(float *data) {
  __shared__ float s[64];
  int tid = threadIdx.x;
  float v = data[blockIdx.x * 64 + tid];
  float acc = 0.0f;
  for (float t = 0.0f; t < 1.0f; t += 0.25f) {
    acc += __expf(-t * v);
  }
  s[tid] = __fdividef(acc, 4.0f) + rsqrtf(fabsf(v) + 1.0f);
  __syncthreads();
  data[blockIdx.x * 64 + tid] = fminf(s[tid], s[(tid + 1) % 64]);
}
