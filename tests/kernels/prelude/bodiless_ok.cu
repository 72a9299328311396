//pass
//--blockDim=64 --gridDim=2
// Functions declared without a body, as GPUVerify's suites write them: each call is an
// arbitrary value and touches no memory.  Every thread writes only its own cells.

struct pair_t { int lo; int hi; };

__device__ int pick(void);
__device__ void observe(int v);
__device__ float blend(pair_t p, const float *where);

__global__ void spread(int *out, float *weights, pair_t *pairs) {
  unsigned me = blockIdx.x * blockDim.x + threadIdx.x;
  int seen = pick();
  while (pick()) {
    out[me] += seen;
    seen = pick();
  }
  observe(out[me]);
  weights[me] = blend(pairs[me], &weights[me]);
}
