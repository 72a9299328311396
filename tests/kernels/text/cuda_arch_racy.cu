//xfail:NOT_ALL_VERIFIED
//--blockDim=64 --gridDim=1
// autosync: races=10-12
// The device branch (__CUDA_ARCH__ defined) has no barrier; the host branch, which would
// verify, is not the one analysed.
__global__ void rotate(int *a) {
  __shared__ int s[64];
  int t = threadIdx.x;
#ifdef __CUDA_ARCH__
  s[t] = a[t];
  a[t] = a[t] + 1;
  a[t] = s[(t + 1) % 64];
#else
  a[t] = a[t] + 1;
#endif
}
