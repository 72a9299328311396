//xfail:NOT_ALL_VERIFIED
//--blockDim=64 --gridDim=4
// Our own kernel: a race inside each block on the shared tile (a barrier fixes it) and a
// race between blocks on the global histogram (every block writes hist[0..63]; no barrier
// can order two blocks).
__global__ void mixed(int *out, int *hist) {
  __shared__ int tile[64];
  tile[threadIdx.x] = out[blockIdx.x * 64 + threadIdx.x];
  out[blockIdx.x * 64 + threadIdx.x] = tile[(threadIdx.x + 1) % 64];
  hist[threadIdx.x] = blockIdx.x;
}
