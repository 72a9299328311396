//pass
//--blockDim=256 --gridDim=16
// Block sum where, after the reduction, EVERY thread stores the result:
// d_out[blockIdx.x] = s_sum[0].  All threads of a block write the same value to one cell:
// a benign write-write race, which GPUVerify tolerates by default (it reports it only
// with --no-benign).  Race-free by that default.

__global__ void block_sum_all_store(const float *d_in, float *d_out) {
  __shared__ float s_sum[256];
  unsigned tid = threadIdx.x;
  s_sum[tid] = d_in[blockIdx.x * 256 + tid];
  __syncthreads();
  for (unsigned half = 128; half > 0; half >>= 1) {
    if (tid < half)
      s_sum[tid] += s_sum[tid + half];
    __syncthreads();
  }
  d_out[blockIdx.x] = s_sum[0];
}
