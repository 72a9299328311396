//pass
//--blockDim=128 --gridDim=4
// References of every kind: `int &n` to a local (the callee's increment must reach the
// caller's variable), `const float &` to a shared element, and a reference to a field of
// a shared float2.  Each thread touches its own cells only, then a barrier before the
// neighbour read.  Race-free.

__device__ void bump(int &n) { n += 1; }
__device__ float twice(const float &v) { return v + v; }

__global__ void refs(const float *in, float *out) {
  __shared__ float s[128];
  __shared__ float2 p[128];
  unsigned tid = threadIdx.x;
  int count = 0;
  bump(count);
  s[tid] = in[blockIdx.x * 128 + tid] * count;
  float &y = p[tid].y;
  y = twice(s[tid]);
  __syncthreads();
  out[blockIdx.x * 128 + tid] = p[(tid + 1) % 128].y;
}
