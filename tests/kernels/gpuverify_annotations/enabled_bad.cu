//xfail:NOT_ALL_VERIFIED
//--blockDim=16 --gridDim=1
// Without the other thread's __enabled(): once one thread has left the loop, the other
// catches up with its counter: not distinct.
__global__ void walk(int *out, int n) {
  int c = threadIdx.x;
  while (__invariant(__distinct_int(c)),
         c < n) {
    c = c + 1;
  }
  out[threadIdx.x] = c;
}
