//pass
//--blockDim=256 --gridDim=4
// Bitonic sort of 256 keys per block in shared memory; the compare-exchange goes through
// a __device__ swap(float &, float &) that writes BOTH shared cells through references.
// In one (k, j) step the pairs (tid, tid ^ j) are disjoint and only the lower thread of a
// pair touches it; the barrier after every step orders the steps.  Race-free.

__device__ void swap(float &a, float &b) {
  float t = a;
  a = b;
  b = t;
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
        if ((s[tid] > s[ixj]) == up)
          swap(s[tid], s[ixj]);
      }
      __syncthreads();
    }
  }
  blk[tid] = s[tid];
}
