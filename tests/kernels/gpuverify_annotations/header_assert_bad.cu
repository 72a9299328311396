//xfail:NOT_ALL_VERIFIED
//--blockDim=32 --gridDim=1
// An assertion written among a loop's condition is checked at the head of every iteration: the second breaks it.
__global__ void steps(int *out, int n) {
  int k = 0;
  while (__assert(k % 2 == 0), k < n) {
    k = k + 3;
  }
  out[threadIdx.x] = k;
}
