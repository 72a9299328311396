//pass
//--blockDim=32 --gridDim=2
// Each thread sums a column of its right neighbour's tile, starting at a row that depends on
// the thread and wrapping round (an index that rotates: pos++, back to 0 at the end).

#define ROWS 8
#define WIDTH 32

__global__ void rotating_sum(unsigned *out, const unsigned *in) {
  __shared__ unsigned tile[ROWS * WIDTH];
  for (int r = 0; r < ROWS; r++) {
    tile[r * WIDTH + threadIdx.x] = in[blockIdx.x * ROWS * WIDTH + r * WIDTH + threadIdx.x];
  }
  __syncthreads();
  unsigned acc = 0;
  int pos = threadIdx.x % ROWS;
  for (int r = 0; r < ROWS; r++) {
    acc += tile[pos * WIDTH + (threadIdx.x + 1) % WIDTH];
    pos++;
    if (pos == ROWS) pos = 0;
  }
  out[blockIdx.x * WIDTH + threadIdx.x] = acc;
}
