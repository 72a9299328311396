//xfail:NOT_ALL_VERIFIED
//--blockDim=64 --gridDim=2
// autosync: races=12-13
// 22_rowptr_ok.cu without the barrier: thread t reads column t + 2 of the row (line R2)
// while thread t + 1 writes it through the row pointer (line R1).  Missed if a subscript of
// `float *` into a 2-D array stepped by whole rows (then the write would land in another row).

__global__ void rows(const float *in, float *out, int r) {
  __shared__ float table[4][65];
  float *row = table[r & 3];
  float *shifted = row + 1;
  shifted[threadIdx.x] = in[blockIdx.x * 64 + threadIdx.x];  // R1
  out[blockIdx.x * 64 + threadIdx.x] = table[r & 3][(threadIdx.x + 1) % 64 + 1];  // R2
}
