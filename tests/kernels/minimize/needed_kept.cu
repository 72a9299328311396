//pass
//--blockDim=64 --gridDim=1
// A shared tile read in reverse: the barrier is needed.  It may go right after the tile's
// write or after the next statement at the same cost; fix --minimize keeps it where the
// developer wrote it (its own tie-break would take the later position).
__global__ void reverse(const int *in, int *out) {
  __shared__ int tile[64];
  unsigned t = threadIdx.x;
  tile[t] = in[t];
  __syncthreads();
  int w = in[t] * 2;
  int v = tile[63u - t];
  out[t] = v + w;
}
