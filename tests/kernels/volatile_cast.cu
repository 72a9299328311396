//pass
//--blockDim=128 --gridDim=4
// volatile pointers, casts and the conditional operator.

__global__ void volatile_cast(const float *in, int *out) {
  __shared__ int s[128];
  volatile int *vs = s;
  int tid = threadIdx.x;
  float f = in[blockIdx.x * 128 + tid];
  vs[tid] = (int)(f < 0.0f ? -f : f);
  __syncthreads();
  unsigned int u = (unsigned int)vs[127 - tid];
  out[blockIdx.x * 128 + tid] = (int)(u > 100u ? 100u : u);
}
