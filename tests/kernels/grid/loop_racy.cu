//xfail:NOT_ALL_VERIFIED
//--blockDim=32 --gridDim=4
// Three rounds of a ring: each block reads the next block's cells, then overwrites its own.
// Inside a round the read and the other block's write race; across rounds the write and
// the next round's read do: two grid barriers in the loop.
__global__ void ring_rounds(int *cells) {
  unsigned b = blockIdx.x;
  unsigned t = threadIdx.x;
  for (int r = 0; r < 3; ++r) {
    int v = cells[((b + 1u) % gridDim.x) * 32u + t];
    cells[b * 32u + t] = v + r;
  }
}
