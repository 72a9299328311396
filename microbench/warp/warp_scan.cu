//pass
//--blockDim=128 --gridDim=32
// autosync: min_barriers=2 original_barriers=3
// Inclusive scan of each warp's 32 elements (Hillis-Steele): lane l adds the value of lane
// l - d for d = 1, 2, 4, 8, 16, reading into a register before a __syncwarp() and writing
// back after it.  Written for this project.  All races are between lanes of one warp, so
// warp barriers are the optimum (two: one at the top of the loop body also orders the
// initial store); a block barrier at either position would cost four times as much.

__global__ void warp_scan(const int *in, int *out) {
  __shared__ int s[128];
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
  out[blockIdx.x * 128 + t] = s[t];
}
