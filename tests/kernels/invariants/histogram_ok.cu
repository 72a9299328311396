//pass
//--blockDim=256 --gridDim=64
// A 64-bin histogram with per-block shared bins (our own kernel): the bins are cleared by a
// block-stride loop, every thread adds its bytes with atomicAdd, and after a barrier the
// bins are merged into the global histogram, again one bin per thread per step.  The
// clearing and merging loops write bin b from thread b % 256 only: their counters keep
// their offset from tid.

#define BINS 64

__global__ void histogram(unsigned *hist, const unsigned char *data, unsigned n) {
  __shared__ unsigned bins[BINS];
  unsigned tid = threadIdx.x;
  for (unsigned b = tid; b < BINS; b += blockDim.x)
    bins[b] = 0;
  __syncthreads();
  for (unsigned i = blockIdx.x * blockDim.x + tid; i < n; i += blockDim.x * gridDim.x)
    atomicAdd(&bins[data[i] % BINS], 1u);
  __syncthreads();
  for (unsigned b = tid; b < BINS; b += blockDim.x)
    atomicAdd(&hist[b], bins[b]);
}
