//xfail:NOT_ALL_VERIFIED
//--blockDim=256 --gridDim=4
// autosync: races=12-26
// 02_references_ok_bitonic.cu without the barrier between steps: the write `b = t`
// (through the reference to s[ixj]) in one step races with the comparison that reads
// s[ixj] as s[tid] in the next step (thread ixj), e.g. threads 0 and 1 at k = 2, j = 1
// then k = 4, j = 2.  A lowering that drops writes through reference parameters misses it.

__device__ void swap(float &a, float &b) {
  float t = a;
  a = b;
  b = t;  // R1
}

__global__ void bitonic_sort256(float *data) {
  __shared__ float s[256];
  unsigned tid = threadIdx.x;
  float *blk = data + blockIdx.x * 256;
  s[tid] = blk[tid];
  __syncthreads();
  for (unsigned k = 2; k <= 256; k <<= 1) {
    for (unsigned j = k >> 1; j > 0; j >>= 1) {
      unsigned ixj = tid ^ j;
      if (ixj > tid) {
        bool up = (tid & k) == 0;
        if ((s[tid] > s[ixj]) == up)  // R1
          swap(s[tid], s[ixj]);
      }
    }
  }
  __syncthreads();
  blk[tid] = s[tid];
}
