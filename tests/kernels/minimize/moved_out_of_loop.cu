//pass
//--blockDim=64 --gridDim=1
// The developer syncs in every round of a loop that only reads the tile; one barrier before
// the loop suffices and costs a hundredth: fix --minimize moves it.
__global__ void sum_rounds(const int *in, int *out, int n) {
  __shared__ int tile[64];
  unsigned t = threadIdx.x;
  tile[t] = in[t];
  int acc = 0;
  for (int r = 0; r < n; ++r) {
    __syncthreads();
    acc += tile[(t + (unsigned)r) % 64u];
  }
  out[t] = acc;
}
