//pass
//--blockDim=256 --gridDim=16
// An inclusive Hillis-Steele scan written with device lambdas that capture by reference:
// 'put' scales and stores into the shared buffer, 'left' reads the partner at distance
// off (0 past the start), and 'tally' adds into a local captured by reference.  In each
// step every thread reads its partner, the first barrier orders those reads before any
// thread overwrites buf[t], the second orders the stores before the next step's reads.
// The partner values tallied into 'exclusive' give the exclusive scan.  Race-free.

__global__ void scaled_scan(const float *in, float *out, float alpha) {
  __shared__ float buf[256];
  int t = threadIdx.x;
  int g = blockIdx.x * 256 + t;
  float exclusive = 0.0f;
  auto put = [&](int slot, float v) { buf[slot] = v * alpha; };
  auto left = [&](int off) { return t >= off ? buf[t - off] : 0.0f; };
  auto tally = [&](float v) { exclusive += v; };
  put(t, in[g]);
  __syncthreads();
  for (int off = 1; off < 256; off *= 2) {
    float v = left(off);
    __syncthreads();
    buf[t] += v;
    tally(v);
    __syncthreads();
  }
  out[g] = exclusive;
}
