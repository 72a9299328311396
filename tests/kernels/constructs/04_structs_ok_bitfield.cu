//pass
//--blockDim=64 --gridDim=4
// Bit-fields in shared memory: thread t writes both bit-fields lo and hi of its own
// flags[t] and, after the barrier, reads those of thread t + 1.  Race-free.

struct Flags {
  unsigned int lo : 4;
  unsigned int hi : 4;
  unsigned int count;
};

__global__ void flags(unsigned int *out) {
  __shared__ Flags f[64];
  int t = threadIdx.x;
  f[t].lo = t & 15;
  f[t].hi = (t >> 4) & 15;
  f[t].count = t;
  __syncthreads();
  int u = (t + 1) % 64;
  out[blockIdx.x * 64 + t] = f[u].lo + 16u * f[u].hi + f[u].count;
}
