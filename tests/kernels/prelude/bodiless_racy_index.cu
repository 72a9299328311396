//xfail:NOT_ALL_VERIFIED
//--blockDim=64 --gridDim=1
// autosync: races=10-10
// The value is arbitrary in every thread: two threads may pick the same slot.

__device__ unsigned pick(void);

__global__ void scatter(int *out) {
  __shared__ int slots[64];
  slots[pick() % 64] = threadIdx.x;
  __syncthreads();
  out[threadIdx.x] = slots[threadIdx.x];
}
