//xfail:NOT_ALL_VERIFIED
//--blockDim=64 --gridDim=1
// autosync: races=17-17
// Work distribution with atomicAdd in a loop, slots taken modulo 64: from the second round
// on (n >= 2) two threads' claims j and j + 64 map to one cell.  An atomic inside a loop is
// never taken as repetition-free (the number of calls is not bounded), so the stores to buf
// on line R1 race.

__global__ void rounds(float *out, int n) {
  __shared__ float buf[64];
  __shared__ int next;
  if (threadIdx.x == 0)
    next = 0;
  __syncthreads();
  for (int r = 0; r < n; ++r) {
    int j = atomicAdd(&next, 1) % 64;
    buf[j] = r;  // R1
  }
  __syncthreads();
  out[threadIdx.x] = buf[threadIdx.x];
}
