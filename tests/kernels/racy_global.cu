//xfail:NOT_ALL_VERIFIED
//--blockDim=64 --gridDim=8
// autosync: races=8-8
// Global memory indexed by threadIdx alone: threads of different blocks write the same
// word.  A write racing with itself cannot be fixed by any barrier.

__global__ void racy_global(int *out) {
  out[threadIdx.x] = blockIdx.x;
}
