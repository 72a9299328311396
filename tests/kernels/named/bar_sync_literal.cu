//pass
//--blockDim=64 --gridDim=4
// Named barrier 1 with the whole block (64 threads) taking part: acts like __syncthreads.

__global__ void named_full(float *data) {
  __shared__ float s[64];
  int tid = threadIdx.x;
  s[tid] = data[blockIdx.x * 64 + tid];
  asm volatile("bar.sync 1, 64;");
  data[blockIdx.x * 64 + tid] = s[63 - tid];
}
