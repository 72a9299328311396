//pass
//--blockDim=256 --gridDim=16
// Reduction parameterised by a __device__ function pointer whose target is known
// statically (op = fmax_op or add_op, chosen by a kernel argument).  Same access pattern
// as a tree reduction: s[tid] written by its own thread, s[tid + half] read by tid only
// after the barrier that ends the previous step.  Race-free.

typedef float (*binop)(float, float);

__device__ float add_op(float a, float b) { return a + b; }
__device__ float fmax_op(float a, float b) { return a > b ? a : b; }

__global__ void block_reduce(const float *in, float *out, int use_max) {
  __shared__ float s[256];
  binop op = add_op;
  if (use_max)
    op = fmax_op;
  int tid = threadIdx.x;
  s[tid] = in[blockIdx.x * 256 + tid];
  __syncthreads();
  for (int half = 128; half > 0; half >>= 1) {
    if (tid < half)
      s[tid] = op(s[tid], s[tid + half]);
    __syncthreads();
  }
  if (tid == 0)
    out[blockIdx.x] = s[0];
}
