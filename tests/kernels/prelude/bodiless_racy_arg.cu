//xfail:NOT_ALL_VERIFIED
//--blockDim=64 --gridDim=1
// autosync: races=12-13
// A bodiless function's arguments are still evaluated: reading out[0] in the call races
// with thread 0's write of it.

__device__ void observe(int v);

__global__ void report(int *out) {
  unsigned me = threadIdx.x;
  if (me == 0)
    out[0] = 7;
  observe(out[0]);
}
