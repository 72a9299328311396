//xfail:NOT_ALL_VERIFIED
//--blockDim=256 --gridDim=4
// thread_bounded_ok.cu without its barrier: the row is read before all of it is written.
// Each thread sums the shared row up to its own index: a loop whose trip count is the
// thread's, longer than the oracle unrolls for most threads.

__global__ void prefix_sums(int *out, const int *in) {
  __shared__ int row[256];
  row[threadIdx.x] = in[blockIdx.x * 256 + threadIdx.x];
  int acc = 0;
  for (int i = 0; i < threadIdx.x; i++) {
    acc += row[i];
  }
  out[blockIdx.x * 256 + threadIdx.x] = acc;
}
