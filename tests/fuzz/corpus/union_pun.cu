//--blockDim=64 --gridDim=1
// fuzz-expect-exit: 2
// A union (type punning): not analysed yet, so a one-line "unsupported" error, never a crash.
typedef union { int i; float f; } pun_t;
__global__ void pun(float *out) {
  pun_t p;
  p.i = threadIdx.x;
  out[threadIdx.x] = p.f;
}
