//pass
//--blockDim=64 --gridDim=1
// If-then-else and modulo a power of two, as annotation values.
__global__ void lanes(int *out) {
  unsigned t = threadIdx.x;
  __assert(__ite(t < 32, t, t - 32) == __mod_pow2(t, 32));
  out[t] = t;
}
