//pass
//--blockDim=128 --gridDim=2
// A goto that leaves two nested loops at once (the search stops at the first hit) and a
// goto back to an earlier statement (a retry loop).  The barrier after `done:` orders the
// searches' reads of s before each thread overwrites its own cell.  Race-free.

__global__ void find_first(const int *in, int *out) {
  __shared__ int s[128];
  int t = threadIdx.x;
  s[t] = in[blockIdx.x * 128 + t];
  __syncthreads();
  int found = -1;
  for (int i = 0; i < 128; ++i) {
    for (int j = 0; j < 4; ++j) {
      if (s[(i + j) % 128] == t) {
        found = i;
        goto done;
      }
    }
  }
done:
  __syncthreads();
  s[t] = found;
  int tries = 0;
again:
  tries += 1;
  if (s[t] > tries)
    goto again;
  out[blockIdx.x * 128 + t] = tries;
}
