//pass
//--blockDim=64 --gridDim=16 --warp-sync=32
// Block sum whose last 32 partial sums are combined warp-synchronously through a
// volatile pointer, without barriers (valid only under --warp-sync=32).

__global__ void warp_tail_sum(const int *in, int *out) {
  __shared__ int s[64];
  int tid = threadIdx.x;
  s[tid] = in[blockIdx.x * 64 + tid];
  __syncthreads();
  if (tid < 32) {
    volatile int *vs = s;
    vs[tid] += vs[tid + 32];
    vs[tid] += vs[tid + 16];
    vs[tid] += vs[tid + 8];
    vs[tid] += vs[tid + 4];
    vs[tid] += vs[tid + 2];
    vs[tid] += vs[tid + 1];
  }
  if (tid == 0) out[blockIdx.x] = s[0];
}
