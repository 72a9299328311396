//pass
//--blockDim=128 --gridDim=2
// Named barriers with the id and thread count passed as asm operands (%0, %1).

__global__ void operand_barriers(const int *in, int *out) {
  __shared__ int stage[64];
  int tid = threadIdx.x;
  int id = 2;
  int count = 128;
  if (tid < 64) {
    stage[tid] = in[blockIdx.x * 64 + tid] + 1;
    asm volatile("bar.arrive %0, %1;" : : "r"(id), "r"(count));
  } else {
    asm volatile("bar.sync %0, %1;" : : "r"(id), "r"(count));
    out[blockIdx.x * 64 + tid - 64] = stage[tid - 64];
  }
}
