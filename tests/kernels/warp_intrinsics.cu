//pass
//--blockDim=128 --gridDim=8
// warpSize, __shfl_down_sync, __ballot_sync, __popc, __ffs: per-warp results staged in
// shared memory and combined after a barrier.

__global__ void warp_vote(const int *in, int *out) {
  __shared__ int warpCounts[4];
  __shared__ int warpFirst[4];
  int tid = threadIdx.x;
  int lane = tid % warpSize;
  int warp = tid / warpSize;
  int v = in[blockIdx.x * blockDim.x + tid];
  unsigned mask = __ballot_sync(0xffffffffu, v > 0);
  for (int off = 16; off > 0; off /= 2)
    v += __shfl_down_sync(0xffffffffu, v, off);
  if (lane == 0) {
    warpCounts[warp] = __popc(mask) + v;
    warpFirst[warp] = __ffs(mask);
  }
  __syncthreads();
  if (tid == 0) {
    out[blockIdx.x] = warpCounts[0] + warpCounts[1] + warpCounts[2] + warpCounts[3] + warpFirst[0];
  }
}
