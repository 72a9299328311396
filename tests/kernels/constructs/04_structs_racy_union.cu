//xfail:NOT_ALL_VERIFIED
//--blockDim=64 --gridDim=4
// autosync: races=16-17
// 04_structs_ok_union.cu where thread t sets byte 1 of its NEIGHBOUR's word: w[t + 1].b[1]
// (line R2) is a byte of w[t + 1].u, which thread t + 1 clears (line R1).  Missed if the
// union's members are laid out one after the other instead of at offset 0.

union Word {
  unsigned int u;
  unsigned char b[4];
};

__global__ void words(unsigned int *out) {
  __shared__ Word w[65];
  int t = threadIdx.x;
  w[t].u = 0u;  // R1
  w[t + 1].b[1] = (unsigned char)t;  // R2
  __syncthreads();
  out[blockIdx.x * 64 + t] = w[(t + 1) % 64].u;
}
