//--blockDim=64 --gridDim=1
// fuzz-expect-exit: 0
// A union (type punning): members share offset 0; a member read back through the other
// member is an unknown value, never a stale one.  Race-free.
typedef union { int i; float f; } pun_t;
__global__ void pun(float *out) {
  pun_t p;
  p.i = threadIdx.x;
  out[threadIdx.x] = p.f;
}
