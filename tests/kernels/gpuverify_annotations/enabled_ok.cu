//pass
//--blockDim=16 --gridDim=1
// The other thread's __enabled(): while both threads run the loop, their counters differ.
__global__ void walk(int *out, int n) {
  int c = threadIdx.x;
  while (__invariant(__implies(__enabled() & __uniform_bool(__enabled()), __distinct_int(c))),
         c < n) {
    c = c + 1;
  }
  out[threadIdx.x] = c;
}
