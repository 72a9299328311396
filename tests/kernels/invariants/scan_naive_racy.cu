//xfail:NOT_ALL_VERIFIED
//--blockDim=512 --gridDim=64
// autosync: races=19-19
// scan_naive_ok.cu without the barrier at the end of a step: step k+1 reads the buffer that
// step k writes, with nothing ordering another thread's write before the read.  Racy.

#define TILE 512

__global__ void scan_naive(float *out, const float *in, unsigned n) {
  __shared__ float buf[2 * TILE];
  unsigned tid = threadIdx.x;
  unsigned pout = 0, pin = 1;
  buf[tid] = in[blockIdx.x * TILE + tid];
  __syncthreads();
  for (unsigned offset = 1; offset < n; offset *= 2) {
    pout = 1 - pout;
    pin = 1 - pout;
    if (tid >= offset)
      buf[pout * TILE + tid] = buf[pin * TILE + tid] + buf[pin * TILE + tid - offset];
    else
      buf[pout * TILE + tid] = buf[pin * TILE + tid];
  }
  __syncthreads();
  out[blockIdx.x * TILE + tid] = buf[pout * TILE + tid];
}
