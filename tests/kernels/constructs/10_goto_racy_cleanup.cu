//xfail:NOT_ALL_VERIFIED
//--blockDim=256 --gridDim=16
// autosync: races=15-21
// 10_goto_ok_cleanup.cu whose cleanup code also resets the thread's shared cell: thread
// t writes s[t] on the goto path (line R1) while thread t - 1 reads it as its right
// neighbour (line R1), with no barrier between.  Missed if the statements after the label
// are dropped.

__global__ void neighbour_sqrt(const float *x, float *out) {
  __shared__ float s[256];
  int t = threadIdx.x;
  int gid = blockIdx.x * 256 + t;
  s[t] = x[gid];
  __syncthreads();
  float v = s[(t + 1) % 256];  // R1
  if (v < 0.0f)
    goto cleanup;
  out[gid] = sqrtf(v);
  return;
cleanup:
  s[t] = 0.0f;  // R1
  out[gid] = 0.0f;
}
