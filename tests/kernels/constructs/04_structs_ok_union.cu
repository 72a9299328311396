//pass
//--blockDim=64 --gridDim=4
// A union in shared memory: member u (4 bytes) and the byte array b[4] share offset 0.
// Thread t clears its word w[t].u, sets byte 1 of it through w[t].b[1], and after the
// barrier reads its neighbour's word.  Every thread writes only its own word.  Race-free.

union Word {
  unsigned int u;
  unsigned char b[4];
};

__global__ void words(unsigned int *out) {
  __shared__ Word w[64];
  int t = threadIdx.x;
  w[t].u = 0u;
  w[t].b[1] = (unsigned char)t;
  __syncthreads();
  out[blockIdx.x * 64 + t] = w[(t + 1) % 64].u;
}
