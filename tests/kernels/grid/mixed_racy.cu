//xfail:NOT_ALL_VERIFIED
//--blockDim=64 --gridDim=4
// Two phases: a shared tile read in reverse (a race inside a block: a block barrier), then
// a global row read from the next block (a race between blocks: a grid barrier).
__global__ void reverse_then_pass(const int *in, int *row, int *out) {
  __shared__ int tile[64];
  unsigned t = threadIdx.x;
  unsigned b = blockIdx.x;
  tile[t] = in[b * 64u + t];
  int mine = tile[63u - t];
  row[b * 64u + t] = mine;
  out[b * 64u + t] = row[((b + 1u) % gridDim.x) * 64u + t];
}
