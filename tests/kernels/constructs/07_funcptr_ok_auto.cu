//pass
//--blockDim=64 --gridDim=4
// Function pointers held in `auto` locals (`auto op = scale;`, `auto get = &neighbour;`):
// thread t stores op(in[gid]) to its own s[t] and, after the barrier, reads s[t + 1 mod 64]
// through get.  Race-free.

__device__ float scale(float x) { return 2.0f * x; }
__device__ float neighbour(const float *s, int t) { return s[(t + 1) % 64]; }

__global__ void apply_ops(const float *in, float *out) {
  __shared__ float s[64];
  int t = threadIdx.x;
  int gid = blockIdx.x * 64 + t;
  auto op = scale;
  auto get = &neighbour;
  s[t] = op(in[gid]);
  __syncthreads();
  out[gid] = get(s, t);
}
