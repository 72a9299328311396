//xfail:NOT_ALL_VERIFIED
//--blockDim=64 --gridDim=1
// autosync: races=12-14
// An intra-iteration loop race: the barrier at the end of the body only orders the
// write against the NEXT iteration's read, not against this iteration's read.

__global__ void racy_loop(float *out, int n) {
  __shared__ float s[65];
  int tid = threadIdx.x;
  float x = 0.0f;
  for (int i = 0; i < n; i++) {
    x = s[tid + 1];
    x = x * 0.5f;
    s[tid] = x;
    __syncthreads();
  }
  out[tid] = x;
}
