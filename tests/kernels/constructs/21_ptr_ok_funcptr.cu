//pass
//--blockDim=128 --gridDim=1
// A function pointer chosen at run time, per thread, from two device functions with
// different access patterns: even threads scale their own element, odd threads add
// their own element to itself.  Each thread touches only s[t] before the barrier, and
// reads a neighbour's element only after it.  Race-free.

typedef void (*update_fn)(float *, int);

__device__ void scale(float *s, int t) { s[t] = 2.0f * s[t]; }
__device__ void twice(float *s, int t) { s[t] = s[t] + s[t]; }

__global__ void apply(const float *in, float *out) {
  __shared__ float s[128];
  int t = threadIdx.x;
  s[t] = in[t];
  update_fn f = (t % 2 == 0) ? scale : twice;
  f(s, t);
  __syncthreads();
  out[t] = s[(t + 1) % 128];
}
