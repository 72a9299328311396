//pass
//--blockDim=128 --gridDim=1
// An optional bias buffer: a pointer that is null unless the flag asks for the shared
// copy.  `if (bias != nullptr)` guards the read; each thread reads its own element of the
// copy, written by itself.  Race-free.

__global__ void add_bias(const float *in, float *out, int use_bias) {
  __shared__ float copy[128];
  int t = threadIdx.x;
  const float *bias = nullptr;
  if (use_bias) {
    copy[t] = in[t];
    bias = copy;
  }
  float v = in[t];
  if (bias != nullptr)
    v += bias[t];
  out[t] = v;
}
