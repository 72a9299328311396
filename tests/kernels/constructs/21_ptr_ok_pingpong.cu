//pass
//--blockDim=128 --gridDim=1
// A ping-pong stencil over two shared buffers: each step reads `in` (three neighbours)
// and writes `out`, then the buffers swap.  The barrier after each step orders the
// writes of one step before the reads of the next.  Race-free.

__global__ void smooth_steps(const float *src, float *dst) {
  __shared__ float a[130];
  __shared__ float b[130];
  int t = threadIdx.x + 1;
  a[t] = src[threadIdx.x];
  b[t] = 0.0f;
  if (threadIdx.x == 0) {
    a[0] = 0.0f; a[129] = 0.0f; b[0] = 0.0f; b[129] = 0.0f;
  }
  __syncthreads();
  float *in = a;
  float *out = b;
  for (int s = 0; s < 4; ++s) {
    out[t] = 0.25f * in[t - 1] + 0.5f * in[t] + 0.25f * in[t + 1];
    __syncthreads();
    float *tmp = in;
    in = out;
    out = tmp;
  }
  dst[threadIdx.x] = in[t];
}
