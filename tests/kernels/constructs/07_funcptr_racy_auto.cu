//xfail:NOT_ALL_VERIFIED
//--blockDim=64 --gridDim=4
// autosync: races=8-16
// 07_funcptr_ok_auto.cu without the barrier: the read inside neighbour, called through the
// pointer get (line R2), races with thread t + 1's store s[t] = op(...) (line R1).  Missed
// if a call through an `auto` function pointer is dropped.
__device__ float scale(float x) { return 2.0f * x; }
__device__ float neighbour(const float *s, int t) { return s[(t + 1) % 64]; }  // R2

__global__ void apply_ops(const float *in, float *out) {
  __shared__ float s[64];
  int t = threadIdx.x;
  int gid = blockIdx.x * 64 + t;
  auto op = scale;
  auto get = &neighbour;
  s[t] = op(in[gid]);  // R1
  out[gid] = get(s, t);
}
