//pass
//--blockDim=32 --gridDim=1
// The predicate form as a precondition: three counts that sum without wrapping.
__global__ void sum3(unsigned p, unsigned q, unsigned r, unsigned *out) {
  __requires(__add_noovfl(p, q, r));
  unsigned s = p + q + r;
  __assert(s >= p && s >= q && s >= r);
  out[threadIdx.x] = s;
}
