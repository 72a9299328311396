//xfail:NOT_ALL_VERIFIED
//--gridDim=16
// autosync: races=12-13
// 20_launch_bounds_ok.cu without the barrier: thread t reads s[blockDim.x - 1 - t]
// (line R1) while thread blockDim.x - 1 - t stores it (line R1); blockDim = 256 from
// __launch_bounds__.

__global__ void __launch_bounds__(256) reverse_block(const float *in, float *out) {
  __shared__ float s[256];
  unsigned t = threadIdx.x;
  unsigned g = blockIdx.x * blockDim.x + t;
  s[t] = in[g];  // R1
  out[g] = s[blockDim.x - 1 - t];  // R1
}
