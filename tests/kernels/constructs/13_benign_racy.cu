//xfail:NOT_ALL_VERIFIED
//--blockDim=256 --gridDim=16
// autosync: races=18-18
// 13_benign_ok.cu with the index discipline broken in the final store: every thread
// writes s_sum[tid] (different values) to the single cell d_out[blockIdx.x] -- a real
// write-write race on line R1 with itself.

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
  d_out[blockIdx.x] = s_sum[tid];  // R1
}
