//pass
//--blockDim=64 --gridDim=4
// Compound assignment, ++/--, and comma expressions in a for header.

__global__ void compound(int *data) {
  __shared__ int s[64];
  int tid = threadIdx.x;
  int acc = 0;
  s[tid] = data[blockIdx.x * 64 + tid];
  __syncthreads();
  for (int i = 0, j = 63; i < 8; i++, j--) {
    acc += s[(tid + i) % 64];
    acc -= s[(j + tid) % 64] >> 1;
    acc <<= 1;
    acc ^= i;
  }
  int k = tid;
  k++;
  --k;
  data[blockIdx.x * 64 + tid] = acc * k;
}
