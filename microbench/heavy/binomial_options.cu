//pass
//--blockDim=128 --gridDim=512
// Issue 28, item 4: the shape of a kernel that timed out at 60 s (our own code).
// Binomial option pricing, one option per block (our own kernel): each thread keeps 16 tree
// nodes in registers and trades the edge node with its right neighbour through shared
// memory at each of the 2,048 time steps.
#define STEPS 2048
#define PER_THREAD 16
#define THREADS 128
__device__ float leafValue(float s, float x, float vdt, int i) {
  float d = s * __expf(vdt * (2.0f * i - STEPS)) - x;
  return d > 0.0f ? d : 0.0f;
}
__global__ void binomialOptions(float *value, const float *spot, const float *strike,
                                const float *vdt, const float *pu, const float *pd) {
  __shared__ float edge[THREADS + 1];
  const int tid = threadIdx.x;
  const float s = spot[blockIdx.x], x = strike[blockIdx.x], v = vdt[blockIdx.x];
  const float up = pu[blockIdx.x], down = pd[blockIdx.x];
  float node[PER_THREAD + 1];
  for (int i = 0; i < PER_THREAD; ++i)
    node[i] = leafValue(s, x, v, tid * PER_THREAD + i);
  if (tid == 0)
    edge[THREADS] = leafValue(s, x, v, STEPS);
  int last = max(0, tid * PER_THREAD - 1);
  for (int step = STEPS; step > 0; --step) {
    edge[tid] = node[0];
    __syncthreads();
    node[PER_THREAD] = edge[tid + 1];
    __syncthreads();
    if (step > last) {
      for (int j = 0; j < PER_THREAD; ++j)
        node[j] = up * node[j + 1] + down * node[j];
    }
  }
  if (tid == 0)
    value[blockIdx.x] = node[0];
}
