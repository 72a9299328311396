//xfail:NOT_ALL_VERIFIED
//--blockDim=64 --gridDim=2
// autosync: races=12-15
// 22_rangefor_ok.cu without the barrier: thread t reads column t + 1 of every row (line R2)
// while thread t + 1 may still be writing it (line R1).  Missed if the loop's element
// reference were not the row it names at each iteration.

__global__ void columns(const float *in, float *out) {
  __shared__ float table[4][64];
  float weights[4] = {1.0f, 2.0f, 3.0f, 4.0f};
  int k = 0;
  for (auto &row : table) row[threadIdx.x] = in[(blockIdx.x * 4 + k++) * 64 + threadIdx.x];  // R1
  float sum = 0.0f;
  k = 0;
  for (const auto &row : table) sum += row[(threadIdx.x + 1) % 64] * weights[k++];  // R2
  for (float w : weights) sum += w;
  out[blockIdx.x * 64 + threadIdx.x] = sum;
}
