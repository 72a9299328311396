//pass
//--blockDim=64 --gridDim=1
// Barriers with a result: a relaxation that runs while any thread changed its value
// (`while (__syncthreads_or(changed))`) and a count of the positive entries
// (`int n = __syncthreads_count(...)`).  Each round reads the left neighbour, synchronizes,
// then writes its own entry; the results are the same in every thread, so the loop and the
// barrier inside it are uniform.  Race-free.

__global__ void relax(float *dist, const float *w) {
  __shared__ float d[64];
  d[threadIdx.x] = dist[threadIdx.x];
  __syncthreads();
  bool changed = true;
  while (__syncthreads_or(changed)) {
    float left = threadIdx.x > 0 ? d[threadIdx.x - 1] + w[threadIdx.x] : d[threadIdx.x];
    __syncthreads();
    changed = left < d[threadIdx.x];
    if (changed) d[threadIdx.x] = left;
  }
  int n = __syncthreads_count(d[threadIdx.x] > 0.0f);
  if (threadIdx.x == 0) dist[0] = n;
  dist[threadIdx.x + 1] = d[threadIdx.x];
}
