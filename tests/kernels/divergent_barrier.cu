//xfail:NOT_ALL_VERIFIED
//--blockDim=64 --gridDim=4
// autosync: divergent=12
// A barrier reachable by only half of the block: barrier divergence.

__global__ void divergent(float *data) {
  __shared__ float s[64];
  int tid = threadIdx.x;
  s[tid] = data[blockIdx.x * 64 + tid];
  if (tid < 16) {
    s[tid] += 1.0f;
    __syncthreads();
  }
  data[blockIdx.x * 64 + tid] = s[tid];
}
