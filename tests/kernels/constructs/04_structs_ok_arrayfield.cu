//pass
//--blockDim=128 --gridDim=4
// Array members in shared memory: struct Acc { float v[4]; int n; }, thread t fills
// acc[t].v[k] for k < 4 and acc[t].n, then after the barrier sums the v of acc[t ^ 1].
// Each thread writes only its own element's bytes.  Race-free.

struct Acc {
  float v[4];
  int n;
};

__global__ void accumulate(const float *in, float *out) {
  __shared__ Acc acc[128];
  int t = threadIdx.x;
  for (int k = 0; k < 4; ++k)
    acc[t].v[k] = in[4 * (blockIdx.x * 128 + t) + k];
  acc[t].n = 4;
  __syncthreads();
  int u = t ^ 1;
  out[blockIdx.x * 128 + t] = (acc[u].v[0] + acc[u].v[3]) / acc[u].n;
}
