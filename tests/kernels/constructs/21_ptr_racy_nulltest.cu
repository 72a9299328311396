//xfail:NOT_ALL_VERIFIED
//--blockDim=128 --gridDim=1
// autosync: races=13-18
// 21_ptr_ok_nulltest.cu reading the neighbour's element of the copy (line R1), which the
// neighbour writes (line R1) with no barrier between.  Missed if the pointer set in the
// branch is taken to be null (or the shared copy) on every path.

__global__ void add_bias(const float *in, float *out, int use_bias) {
  __shared__ float copy[128];
  int t = threadIdx.x;
  const float *bias = nullptr;
  if (use_bias) {
    copy[t] = in[t];  // R1
    bias = copy;
  }
  float v = in[t];
  if (bias != nullptr)
    v += bias[(t + 1) % 128];  // R1
  out[t] = v;
}
