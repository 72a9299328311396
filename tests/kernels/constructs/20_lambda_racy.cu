//xfail:NOT_ALL_VERIFIED
//--blockDim=256 --gridDim=16
// autosync: races=14-20
// 20_lambda_ok.cu without the barrier between the partner read and the store in each scan
// step: the read of buf[t - off] inside the by-reference lambda 'left' (line R1) races
// with thread t - off's update buf[t] += v (line R1).

__global__ void scaled_scan(const float *in, float *out, float alpha) {
  __shared__ float buf[256];
  int t = threadIdx.x;
  int g = blockIdx.x * 256 + t;
  float exclusive = 0.0f;
  auto put = [&](int slot, float v) { buf[slot] = v * alpha; };
  auto left = [&](int off) { return t >= off ? buf[t - off] : 0.0f; };  // R1
  auto tally = [&](float v) { exclusive += v; };
  put(t, in[g]);
  __syncthreads();
  for (int off = 1; off < 256; off *= 2) {
    float v = left(off);
    buf[t] += v;  // R1
    tally(v);
    __syncthreads();
  }
  out[g] = exclusive;
}
