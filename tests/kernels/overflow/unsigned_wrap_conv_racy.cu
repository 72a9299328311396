//xfail:NOT_ALL_VERIFIED
//--blockDim=64 --gridDim=1
// Our own kernel: the unsigned product t * s wraps (defined) and only then is converted to
// int, in range: threads 0 and 8 both get index 0 when s = 2^29.  The assumption about
// unsigned sums converted to int must not hide a race that needs only unsigned wrap-around.
__global__ void scaled(int *a, unsigned s) {
  unsigned t = threadIdx.x;
  int i = t * s;
  if (s > 0)
    a[i] = t;
}
