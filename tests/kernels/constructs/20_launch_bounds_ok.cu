//pass
//--gridDim=16
// __launch_bounds__(256) states the block size: there is no blockDim in the flags line,
// the bound gives blockDim = 256.  The kernel reverses each block's segment through
// shared memory of 256 floats indexed with blockDim.x; the barrier
// orders every store s[t] before thread t reads s[blockDim.x - 1 - t].  Race-free.

__global__ void __launch_bounds__(256) reverse_block(const float *in, float *out) {
  __shared__ float s[256];
  unsigned t = threadIdx.x;
  unsigned g = blockIdx.x * blockDim.x + t;
  s[t] = in[g];
  __syncthreads();
  out[g] = s[blockDim.x - 1 - t];
}
