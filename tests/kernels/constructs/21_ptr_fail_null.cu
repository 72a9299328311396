//xfail:NOT_ALL_VERIFIED
//--blockDim=128 --gridDim=1
// autosync: assert_fails=17
// 21_ptr_ok_nulltest.cu without the null test, and the copy made by the lower half of
// the block only: for threads 64 and up `bias` is still null at the read on line 17 -- a
// null dereference, reported as a failing check (not a crash, not "verified").

__global__ void add_bias(const float *in, float *out) {
  __shared__ float copy[128];
  int t = threadIdx.x;
  const float *bias = nullptr;
  if (t < 64) {
    copy[t] = in[t];
    bias = copy;
  }
  float v = in[t];
  v += bias[t];
  out[t] = v;
}
