//xfail:NOT_ALL_VERIFIED
//--blockDim=512 --gridDim=64
// Issue 28, item 4: the shape of a kernel that timed out at 60 s (our own code).
// Merge sort inside one block (our own kernel): 1,024 keys with values in shared memory;
// at each doubling width every thread places one element of each pair of runs by a binary
// search in the other run.
// Expected verdict: races on key/val.  Two threads write distinct places only when each run is
// already sorted, a fact about the data that no check over every input may assume; it is a
// precondition on the input that AutoSync cannot state or infer.
#define TILE 1024
__device__ unsigned rankBelow(unsigned v, const unsigned *run, unsigned len, unsigned step) {
  if (len == 0) return 0;
  unsigned at = 0;
  for (; step > 0; step >>= 1) {
    unsigned nxt = min(at + step, len);
    if (run[nxt - 1] < v) at = nxt;
  }
  return at;
}
__device__ unsigned rankUpTo(unsigned v, const unsigned *run, unsigned len, unsigned step) {
  if (len == 0) return 0;
  unsigned at = 0;
  for (; step > 0; step >>= 1) {
    unsigned nxt = min(at + step, len);
    if (run[nxt - 1] <= v) at = nxt;
  }
  return at;
}
__global__ void mergeSortTile(unsigned *dkey, unsigned *dval, const unsigned *skey,
                              const unsigned *sval, unsigned length) {
  __shared__ unsigned key[TILE];
  __shared__ unsigned val[TILE];
  const unsigned t = threadIdx.x;
  const unsigned off = blockIdx.x * TILE + t;
  key[t] = skey[off];
  val[t] = sval[off];
  key[t + TILE / 2] = skey[off + TILE / 2];
  val[t + TILE / 2] = sval[off + TILE / 2];
  for (unsigned width = 1; width < length; width <<= 1) {
    unsigned lane = t & (width - 1);
    unsigned *bk = key + 2 * (t - lane);
    unsigned *bv = val + 2 * (t - lane);
    __syncthreads();
    unsigned ka = bk[lane], va = bv[lane];
    unsigned kb = bk[lane + width], vb = bv[lane + width];
    unsigned pa = rankBelow(ka, bk + width, width, width) + lane;
    unsigned pb = rankUpTo(kb, bk, width, width) + lane;
    __syncthreads();
    bk[pa] = ka;
    bv[pa] = va;
    bk[pb] = kb;
    bv[pb] = vb;
  }
  __syncthreads();
  dkey[off] = key[t];
  dval[off] = val[t];
  dkey[off + TILE / 2] = key[t + TILE / 2];
  dval[off + TILE / 2] = val[t + TILE / 2];
}
