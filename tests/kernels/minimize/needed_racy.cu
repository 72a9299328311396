//xfail:NOT_ALL_VERIFIED
//--blockDim=64 --gridDim=1
// needed_kept.cu without its barrier: the tile races.
__global__ void reverse(const int *in, int *out) {
  __shared__ int tile[64];
  unsigned t = threadIdx.x;
  tile[t] = in[t];
  int w = in[t] * 2;
  int v = tile[63u - t];
  out[t] = v + w;
}
