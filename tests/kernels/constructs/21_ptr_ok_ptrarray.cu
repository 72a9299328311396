//pass
//--blockDim=64 --gridDim=1
// A local array of pointers to two shared buffers: even threads store into one, odd
// threads into the other, through the element their parity picks; after the barrier each
// thread reads its neighbour's value through the other element.  Then the second element is
// set to the first buffer, and each thread writes its own element of it.  Race-free.

__global__ void interleave(const float *in, float *out) {
  __shared__ float even[64];
  __shared__ float odd[64];
  float *bufs[2] = {even, odd};
  int t = threadIdx.x;
  bufs[t % 2][t] = in[t];
  __syncthreads();
  float *src = bufs[(t + 1) % 2];
  out[t] = src[(t + 1) % 64];
  __syncthreads();
  bufs[1] = even;
  bufs[1][t] = 0.0f;
}
