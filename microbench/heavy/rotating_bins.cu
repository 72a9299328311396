//pass
//--blockDim=64 --gridDim=16
// Shaped like a per-thread histogram merge: each thread walks the 64 counters of its row,
// starting at a staggered position so that neighbours hit different banks, its index
// rotating back to 0 at the end of the row (pos++; if (pos == ROW) pos = 0;).  Exactly
// unrolled, the position is a chain of conditionals 64 deep.

#define ROW 64

__global__ void merge_rows(unsigned *totals, const unsigned *counts) {
  __shared__ unsigned rows[ROW * ROW];
  for (int j = 0; j < ROW; j++) {
    rows[j * ROW + threadIdx.x] = counts[blockIdx.x * ROW * ROW + j * ROW + threadIdx.x];
  }
  __syncthreads();
  unsigned total = 0;
  int pos = (threadIdx.x % 16) * 4;
  for (int j = 0; j < ROW; j++) {
    total += rows[threadIdx.x * ROW + pos];
    pos++;
    if (pos == ROW) pos = 0;
  }
  totals[blockIdx.x * ROW + threadIdx.x] = total;
}
