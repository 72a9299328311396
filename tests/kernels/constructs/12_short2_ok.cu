//pass
//--blockDim=256 --gridDim=8
// short2 / uchar4 views of an int array: thread t writes s[t] through a short2 pointer
// (its own 4 bytes) and then patches the low byte of its own word through a uchar4 view
// (same 4 bytes, same thread); after the barrier each thread reads its neighbour's word.
// Race-free.

__global__ void pack_pairs(const short *lo, const short *hi, int *out) {
  __shared__ int s[256];
  unsigned t = threadIdx.x;
  unsigned g = blockIdx.x * 256 + t;
  short2 *p = (short2 *)s;
  p[t] = make_short2(lo[g], hi[g]);
  uchar4 *q = (uchar4 *)s;
  q[t].x = (unsigned char)(q[t].x | 1);
  __syncthreads();
  out[g] = s[(t + 1) % 256];
}
