//xfail:NOT_ALL_VERIFIED
//--blockDim=64 --gridDim=2
// autosync: races=11-12
// The race sits inside a thread-dependent branch: a barrier between the two statements
// would diverge, and one outside the branch cannot separate them.

__global__ void racy_in_branch(int *data) {
  __shared__ int s[65];
  int tid = threadIdx.x;
  if (tid < 32) {
    int v = s[tid + 1];
    s[tid] = v + 1;
  }
  data[blockIdx.x * 64 + tid] = tid;
}
