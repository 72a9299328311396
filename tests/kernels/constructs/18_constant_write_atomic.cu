//xfail:NOT_ALL_VERIFIED
//--blockDim=64 --gridDim=4
// autosync: constant_write=11
// An atomic update of __constant__ memory (line R1): as read-only for device code as a
// plain store (18_constant_write.cu), so the kernel is refused.

__constant__ int c_count[4];

__global__ void count(const int *in, int *out) {
  int t = threadIdx.x;
  atomicAdd(&c_count[blockIdx.x], in[blockIdx.x * 64 + t]);  // R1
  out[blockIdx.x * 64 + t] = t;
}
