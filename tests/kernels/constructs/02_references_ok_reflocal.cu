//pass
//--blockDim=512 --gridDim=8
// Tree reduction written through a reference local: `float &acc = s[tid]` aliases the
// thread's own shared cell, and `acc += s[tid + stride]` writes it.  Thread tid writes
// s[tid] (tid < stride) and reads s[tid + stride] (>= stride): disjoint within a step,
// and the barrier ends every step.  Race-free.

__global__ void block_sum(const float *in, float *out) {
  __shared__ float s[512];
  unsigned tid = threadIdx.x;
  s[tid] = in[blockIdx.x * 512 + tid];
  __syncthreads();
  float &acc = s[tid];
  for (unsigned stride = 256; stride > 0; stride >>= 1) {
    if (tid < stride)
      acc += s[tid + stride];
    __syncthreads();
  }
  if (tid == 0)
    out[blockIdx.x] = acc;
}
