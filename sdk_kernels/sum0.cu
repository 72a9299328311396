//pass
//--blockDim=256 --gridDim=64
// autosync: min_barriers=2 original_barriers=2
// Normalise each block's values by the block's sum: the values are staged in shared
// memory, thread 0 adds them up serially and publishes the total, then every thread
// divides by it.  Two barriers: stage -> sum, and publish -> use.

__global__ void sum0(const float *in, float *out) {
  __shared__ float vals[256];
  __shared__ float total;
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * blockDim.x + tid;
  vals[tid] = in[i];
  __syncthreads();
  if (tid == 0) {
    float s = 0.0f;
    for (int k = 0; k < 256; k++) {
      s += vals[k];
    }
    total = s;
  }
  __syncthreads();
  out[i] = vals[tid] / total;
}
