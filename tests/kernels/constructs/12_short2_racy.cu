//xfail:NOT_ALL_VERIFIED
//--blockDim=256 --gridDim=8
// autosync: races=13-15
// 12_short2_ok.cu with the element size confused: the patch goes through an unsigned
// short view indexed by t, so thread t writes halfword t, which is in word t / 2 -- the
// word thread t / 2 writes through the short2 view (line R1 with the short2 store).

__global__ void pack_pairs(const short *lo, const short *hi, int *out) {
  __shared__ int s[256];
  unsigned t = threadIdx.x;
  unsigned g = blockIdx.x * 256 + t;
  short2 *p = (short2 *)s;
  p[t] = make_short2(lo[g], hi[g]);  // R1
  unsigned short *q = (unsigned short *)s;
  q[t] = (unsigned short)(q[t] | 1);  // R1
  __syncthreads();
  out[g] = s[(t + 1) % 256];
}
