//pass
//--blockDim=128 --gridDim=4
// Block reduction whose last 32 elements are summed by warp 0 alone: each step reads the
// partner's partial sum into a register, __syncwarp(), writes it back, __syncwarp().  The
// lanes of a warp are not in lock-step (independent thread scheduling), so both warp
// barriers are needed; no __syncthreads() is, because only warp 0 touches s[0..63] then.

__global__ void warp_tail(const int *in, int *out) {
  __shared__ int s[128];
  unsigned t = threadIdx.x;
  s[t] = in[blockIdx.x * 128 + t];
  __syncthreads();
  if (t < 64)
    s[t] += s[t + 64];
  __syncthreads();
  if (t < 32) {
    int v = s[t] + s[t + 32];
    for (unsigned off = 16; off > 0; off >>= 1) {
      __syncwarp();
      s[t] = v;
      __syncwarp();
      v += s[t + off];
    }
    if (t == 0)
      out[blockIdx.x] = v;
  }
}
