//pass
//--blockDim=128 --gridDim=32
// Scalar products of many vector pairs (our own kernel): each block takes pairs
// blockIdx.x, blockIdx.x + gridDim.x, ...; each thread sums a strided slice of the pair into
// a register, the partial sums go to shared memory and a halving tree reduces them.  The
// stride loop over the pair decides no address; the tree's width halves from a constant.

#define THREADS 128

__global__ void scalar_prod(float *out, const float *a, const float *b, unsigned pairs,
                            unsigned len) {
  __shared__ float part[THREADS];
  unsigned tid = threadIdx.x;
  for (unsigned v = blockIdx.x; v < pairs; v += gridDim.x) {
    unsigned base = v * len;
    float sum = 0.0f;
    for (unsigned i = tid; i < len; i += THREADS)
      sum += a[base + i] * b[base + i];
    part[tid] = sum;
    for (unsigned w = THREADS / 2; w > 0; w >>= 1) {
      __syncthreads();
      if (tid < w)
        part[tid] += part[tid + w];
    }
    if (tid == 0)
      out[v] = part[0];
    __syncthreads();
  }
}
