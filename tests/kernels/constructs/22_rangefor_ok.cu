//pass
//--blockDim=64 --gridDim=2
// Range-based for loops over arrays: each thread fills its column of every row of a shared
// table (`for (auto &row : table)`, the element a reference to a row), and after the barrier
// sums its neighbour's column over the rows, and a local array by value.  Race-free.

__global__ void columns(const float *in, float *out) {
  __shared__ float table[4][64];
  float weights[4] = {1.0f, 2.0f, 3.0f, 4.0f};
  int k = 0;
  for (auto &row : table) row[threadIdx.x] = in[(blockIdx.x * 4 + k++) * 64 + threadIdx.x];
  __syncthreads();
  float sum = 0.0f;
  k = 0;
  for (const auto &row : table) sum += row[(threadIdx.x + 1) % 64] * weights[k++];
  for (float w : weights) sum += w;
  out[blockIdx.x * 64 + threadIdx.x] = sum;
}
