//xfail:NOT_ALL_VERIFIED
//--blockDim=128 --gridDim=1
// autosync: assert_fails=21
// 21_ptr_ok_funcptr.cu with the choice made by the lower half of the block only: for
// threads 64 and up `f` is still null at the call on line 21 -- a call through a null
// function pointer, reported as a failing check (not skipped, not "verified").

typedef void (*update_fn)(float *, int);

__device__ void scale(float *s, int t) { s[t] = 2.0f * s[t]; }
__device__ void twice(float *s, int t) { s[t] = s[t] + s[t]; }

__global__ void apply(const float *in, float *out) {
  __shared__ float s[128];
  int t = threadIdx.x;
  s[t] = in[t];
  update_fn f = 0;
  if (t < 64) {
    f = (t % 2 == 0) ? scale : twice;
  }
  f(s, t);
  __syncthreads();
  out[t] = s[(t + 1) % 128];
}
