//pass
//--blockDim=64 --gridDim=2
// A pointer to one row of a 2-D shared array (`float *row = table[r]`, and `row + 1`)
// steps by elements, not by rows: each thread writes its own column of row r through it,
// and after the barrier reads its neighbour's column of the same row through the array.
// Race-free.

__global__ void rows(const float *in, float *out, int r) {
  __shared__ float table[4][65];
  float *row = table[r & 3];
  float *shifted = row + 1;
  shifted[threadIdx.x] = in[blockIdx.x * 64 + threadIdx.x];
  __syncthreads();
  out[blockIdx.x * 64 + threadIdx.x] = table[r & 3][(threadIdx.x + 1) % 64 + 1];
}
