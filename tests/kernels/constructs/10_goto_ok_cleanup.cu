//pass
//--blockDim=256 --gridDim=16
// Forward goto to cleanup code on the error path, after the last barrier (so no thread
// skips a barrier).  Thread t stages x[t] in shared memory; after the barrier it reads
// its right neighbour and either writes sqrt or, via goto, a zero to ITS OWN out cell.
// Race-free.

__global__ void neighbour_sqrt(const float *x, float *out) {
  __shared__ float s[256];
  int t = threadIdx.x;
  int gid = blockIdx.x * 256 + t;
  s[t] = x[gid];
  __syncthreads();
  float v = s[(t + 1) % 256];
  if (v < 0.0f)
    goto cleanup;
  out[gid] = sqrtf(v);
  return;
cleanup:
  out[gid] = 0.0f;
}
