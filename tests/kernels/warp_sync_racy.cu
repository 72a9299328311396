//xfail:NOT_ALL_VERIFIED
//--blockDim=64 --gridDim=16
// autosync: races=14-15,15-15
// The same warp-synchronous tail as warp_sync.cu, checked WITHOUT --warp-sync: then the
// unsynchronized steps race (vs[tid] += vs[tid + 16] reads what another thread writes).

__global__ void warp_tail_sum_racy(const int *in, int *out) {
  __shared__ int s[64];
  int tid = threadIdx.x;
  s[tid] = in[blockIdx.x * 64 + tid];
  __syncthreads();
  if (tid < 32) {
    volatile int *vs = s;
    vs[tid] += vs[tid + 32];
    vs[tid] += vs[tid + 16];
  }
  if (tid == 0) out[blockIdx.x] = s[0];
}
