//pass
//--blockDim=512 --gridDim=64
// Issue 28, item 4: the shape of a kernel that timed out at 60 s (our own code).
// Batcher's odd-even merge sort inside one block (our own kernel): 1,024 keys with values;
// the first comparison of each merge spans the whole half, the later ones only the
// elements at an odd multiple of the stride.
#define TILE 1024
__device__ void orderPair(unsigned &ka, unsigned &va, unsigned &kb, unsigned &vb, unsigned up) {
  if ((ka > kb) == up) {
    unsigned t = ka; ka = kb; kb = t;
    t = va; va = vb; vb = t;
  }
}
__global__ void oddEvenTile(unsigned *dkey, unsigned *dval, const unsigned *skey,
                            const unsigned *sval, unsigned length, unsigned up) {
  __shared__ unsigned key[TILE];
  __shared__ unsigned val[TILE];
  const unsigned t = threadIdx.x;
  const unsigned off = blockIdx.x * TILE + t;
  key[t] = skey[off];
  val[t] = sval[off];
  key[t + TILE / 2] = skey[off + TILE / 2];
  val[t + TILE / 2] = sval[off + TILE / 2];
  for (unsigned size = 2; size <= length; size <<= 1) {
    unsigned stride = size / 2;
    unsigned lane = t & (stride - 1);
    __syncthreads();
    unsigned first = 2 * t - (t & (stride - 1));
    orderPair(key[first], val[first], key[first + stride], val[first + stride], up);
    stride >>= 1;
    for (; stride > 0; stride >>= 1) {
      __syncthreads();
      unsigned p = 2 * t - (t & (stride - 1));
      if (lane >= stride)
        orderPair(key[p - stride], val[p - stride], key[p], val[p], up);
    }
  }
  __syncthreads();
  dkey[off] = key[t];
  dval[off] = val[t];
  dkey[off + TILE / 2] = key[t + TILE / 2];
  dval[off + TILE / 2] = val[t + TILE / 2];
}
