//pass
//--blockDim=128 --gridDim=16
// Shared-memory histogram with atomicAdd; a flag claimed with atomicCAS.
// Atomics never race with atomics; the barriers order them against plain accesses.

__global__ void hist8(const unsigned int *in, unsigned int *out) {
  __shared__ unsigned int bins[8];
  __shared__ int owner;
  int tid = threadIdx.x;
  if (tid < 8) {
    bins[tid] = 0;
  }
  if (tid == 0) {
    owner = -1;
  }
  __syncthreads();
  atomicAdd(&bins[in[blockIdx.x * 128 + tid] % 8], 1u);
  atomicCAS(&owner, -1, tid);
  __syncthreads();
  if (tid < 8) {
    out[blockIdx.x * 8 + tid] = bins[tid] + (owner >= 0 ? 1 : 0);
  }
}
