//xfail:NOT_ALL_VERIFIED
//--blockDim=256 --gridDim=16
// autosync: races=18-18
// 13_benign_ok.cu where ONE thread stores a different value: thread 200 stores the partial
// sum s_sum[1] instead of the total s_sum[0], so its store and any other thread's store to
// d_out[blockIdx.x] write different values -- a real write-write race on line R1.

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
  d_out[blockIdx.x] = s_sum[tid == 200 ? 1 : 0];  // R1
}
