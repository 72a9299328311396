//xfail:NOT_ALL_VERIFIED
//--blockDim=64 --gridDim=1
// autosync: expect=race
// Data flows both ways (our own): warp 0 writes req and reads ack, warp 1 reads req and
// writes ack.  One arrive/sync pair orders one direction only: `fix` says so (exit 1).

__global__ void both_ways(const int *in, int *out) {
  __shared__ int req[32];
  __shared__ int ack[32];
  int lane = threadIdx.x % 32;
  if (threadIdx.x < 32) {
    req[lane] = in[lane];
    out[lane] = ack[lane];
  } else {
    ack[lane] = req[31 - lane] + 1;
  }
}
