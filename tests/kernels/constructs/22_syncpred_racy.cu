//xfail:NOT_ALL_VERIFIED
//--blockDim=64 --gridDim=1
// autosync: races=15-17
// 22_syncpred_ok.cu without the __syncthreads() between the read of the left neighbour
// (line R1) and the write of the own entry (line R2): thread t may overwrite d[t] while
// thread t + 1 reads it in the same round.  Missed if the loop's __syncthreads_or were taken
// for a barrier between the two.

__global__ void relax(float *dist, const float *w) {
  __shared__ float d[64];
  d[threadIdx.x] = dist[threadIdx.x];
  __syncthreads();
  bool changed = true;
  while (__syncthreads_or(changed)) {
    float left = threadIdx.x > 0 ? d[threadIdx.x - 1] + w[threadIdx.x] : d[threadIdx.x];  // R1
    changed = left < d[threadIdx.x];
    if (changed) d[threadIdx.x] = left;  // R2
  }
  int n = __syncthreads_count(d[threadIdx.x] > 0.0f);
  if (threadIdx.x == 0) dist[0] = n;
  dist[threadIdx.x + 1] = d[threadIdx.x];
}
