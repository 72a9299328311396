//xfail:NOT_ALL_VERIFIED
//--blockDim=64 --gridDim=4
// autosync: races=17-18
// 04_structs_ok_bitfield.cu where thread t writes bit-field hi of flags[t + 1]: lo and hi
// share one 4-byte storage unit, and a store to a bit-field rewrites its unit, so thread t
// (line R2) and thread t + 1 (line R1) race on it although they name different fields.

struct Flags {
  unsigned int lo : 4;
  unsigned int hi : 4;
  unsigned int count;
};

__global__ void flags(unsigned int *out) {
  __shared__ Flags f[65];
  int t = threadIdx.x;
  f[t].lo = t & 15;  // R1
  f[t + 1].hi = (t >> 4) & 15;  // R2
  f[t].count = t;
  __syncthreads();
  int u = (t + 1) % 64;
  out[blockIdx.x * 64 + t] = f[u].lo + 16u * f[u].hi + f[u].count;
}
