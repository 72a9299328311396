//xfail:NOT_ALL_VERIFIED
//--blockDim=128 --gridDim=4
// autosync: races=19-20
// 19_syncwarp_ok_tail.cu without the warp barriers: lane t + off writes s[t + off] (line
// R1) while lane t reads it (line R2), in one iteration and across iterations.  Race-free
// only under --warp-sync=32 (pre-Volta lock-step); a __syncwarp() fixes it.

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
      s[t] = v;  // R1
      v += s[t + off];  // R2
    }
    if (t == 0)
      out[blockIdx.x] = v;
  }
}
