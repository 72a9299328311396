//pass
//--blockDim=32 --gridDim=1
// An assertion written among a loop's condition is checked at the head of every iteration.
__global__ void steps(int *out, int n) {
  int k = 0;
  while (__assert(k % 2 == 0), k < n) {
    k = k + 2;
  }
  out[threadIdx.x] = k;
}
