//xfail:NOT_ALL_VERIFIED
//--blockDim=256 --gridDim=16
// autosync: races=23-23
// 07_funcptr_ok.cu with the loop barrier dropped: s[tid] written in one step is read as
// s[tid' + half'] by another thread in the next.  Missed if the call through the pointer
// is dropped together with its argument reads.

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
      s[tid] = op(s[tid], s[tid + half]);  // R1
  }
  __syncthreads();
  if (tid == 0)
    out[blockIdx.x] = s[0];
}
