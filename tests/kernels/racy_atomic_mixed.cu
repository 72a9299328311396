//xfail:NOT_ALL_VERIFIED
//--blockDim=128 --gridDim=4
// autosync: races=12-13
// An atomic increment races with a plain read of the same counter (atomics only
// commute with atomics).

__global__ void racy_atomic(const int *in, int *out) {
  __shared__ int counter;
  int tid = threadIdx.x;
  if (tid == 0) counter = 0;
  __syncthreads();
  atomicAdd(&counter, in[blockIdx.x * 128 + tid]);
  out[blockIdx.x * 128 + tid] = counter;
}
