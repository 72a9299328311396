//xfail:NOT_ALL_VERIFIED
//--blockDim=64 --gridDim=1
// Our own kernel, the racy twin of signed_index_ok.cu: the same index in unsigned
// arithmetic, which wraps (defined): threads 0 and 8 meet at index 0 when s = 2^29.
__global__ void scaled(int *a, unsigned s) {
  unsigned t = threadIdx.x;
  if (s > 0)
    a[t * s] = t;
}
