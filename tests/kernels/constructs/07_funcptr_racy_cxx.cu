//xfail:NOT_ALL_VERIFIED
//--blockDim=128 --gridDim=2
// autosync: races=13-24,14-24
// 07_funcptr_ok_cxx.cu without the second barrier: the neighbour read inside either target
// (lines 13, 14) races with the write s[t] = v (line 24).  Missed if the call through the
// pointer is dropped.
// A function pointer chosen by a ternary over a uniform kernel argument and passed to a
// __device__ function that calls it through (*f)(...): both targets read s at the
// thread's neighbour, which the barrier orders after the writes.  Race-free.

typedef float (*unop)(const float *, int);

__device__ float left(const float *s, int i) { return s[(i + 127) % 128]; }
__device__ float right(const float *s, int i) { return s[(i + 1) % 128]; }
__device__ float apply(unop f, const float *s, int i) { return (*f)(s, i); }

__global__ void shift(const float *in, float *out, int dir) {
  __shared__ float s[128];
  int t = threadIdx.x;
  unop f = dir ? &right : left;
  s[t] = in[blockIdx.x * 128 + t];
  __syncthreads();
  float v = apply(f, s, t);
  s[t] = v;
  out[blockIdx.x * 128 + t] = s[t];
}
