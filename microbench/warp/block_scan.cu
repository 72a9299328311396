//pass
//--blockDim=128 --gridDim=32
// autosync: min_barriers=3 original_barriers=4
// Two-level inclusive scan of a block: each warp scans its 32 elements with warp barriers,
// lane 31 publishes the warp's total, and after a block barrier every thread adds the
// totals of the warps before it.  Written for this project.  The optimum mixes both kinds:
// __syncwarp() inside the warp scan, one block barrier where the totals cross warps.

__global__ void block_scan(const int *in, int *out) {
  __shared__ int s[128];
  __shared__ int totals[4];
  unsigned t = threadIdx.x;
  unsigned lane = t % 32;
  s[t] = in[blockIdx.x * 128 + t];
  __syncwarp();
  for (unsigned d = 1; d < 32; d <<= 1) {
    int x = s[t];
    if (lane >= d)
      x += s[t - d];
    __syncwarp();
    s[t] = x;
    __syncwarp();
  }
  if (lane == 31)
    totals[t / 32] = s[t];
  __syncthreads();
  int add = 0;
  for (unsigned w = 0; w < t / 32; ++w)
    add += totals[w];
  out[blockIdx.x * 128 + t] = s[t] + add;
}
