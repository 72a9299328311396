//pass
//--blockDim=256 --gridDim=64
// autosync: min_barriers=2 original_barriers=2
// Block sum by a sequential-addressing tree (barrier at the top of each step), then the
// sum is broadcast to every thread, which needs one more barrier after the tree.

__global__ void sum1(const float *in, float *out) {
  __shared__ float sdata[256];
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * blockDim.x + tid;
  float v = in[i];
  sdata[tid] = v;
  for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
    __syncthreads();
    if (tid < s) {
      sdata[tid] += sdata[tid + s];
    }
  }
  __syncthreads();
  out[i] = v / sdata[0];
}
