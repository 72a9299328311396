//xfail:NOT_ALL_VERIFIED
//--blockDim=128 --gridDim=1
// autosync: races=11-12,12-17
// 21_ptr_ok_funcptr.cu where the second function reads its right neighbour's element
// (line R1), which the neighbour writes at the same time, running the other function
// (line R1) -- or, for thread 127, thread 0's first store (line R2).  Missed if the call
// through the pointer is bound to one function only.

typedef void (*update_fn)(float *, int);

__device__ void scale(float *s, int t) { s[t] = 2.0f * s[t]; }  // R1
__device__ void twice(float *s, int t) { s[t] = s[t] + s[(t + 1) % 128]; }  // R1 R2

__global__ void apply(const float *in, float *out) {
  __shared__ float s[128];
  int t = threadIdx.x;
  s[t] = in[t];  // R2
  update_fn f = (t % 2 == 0) ? scale : twice;
  f(s, t);
  __syncthreads();
  out[t] = s[(t + 1) % 128];
}
