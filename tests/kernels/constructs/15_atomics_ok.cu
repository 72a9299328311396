//pass
//--blockDim=256 --gridDim=16
// Stream compaction: every thread with a positive value claims a distinct slot with
// j = atomicAdd(&count, 1) and writes buf[j]; negative values go to a second list
// through atomicInc (wraps at 255, but at most 256 calls from 0 give 0..255, distinct).
// Distinct return values make the buf / neg writes of different threads disjoint.
// The barrier orders them before the copy-out.  Race-free.

__global__ void compact(const float *in, float *out, float *out_neg, unsigned *counts) {
  __shared__ float buf[256];
  __shared__ float neg[256];
  __shared__ int count;
  __shared__ unsigned ncount;
  unsigned tid = threadIdx.x;
  if (tid == 0) {
    count = 0;
    ncount = 0;
  }
  __syncthreads();
  float v = in[blockIdx.x * 256 + tid];
  if (v > 0.0f) {
    int j = atomicAdd(&count, 1);
    buf[j] = v;
  } else if (v < 0.0f) {
    unsigned j = atomicInc(&ncount, 255u);
    neg[j] = v;
  }
  __syncthreads();
  if (tid < count)
    out[blockIdx.x * 256 + tid] = buf[tid];
  if (tid < ncount)
    out_neg[blockIdx.x * 256 + tid] = neg[tid];
  if (tid == 0) {
    counts[2 * blockIdx.x] = count;
    counts[2 * blockIdx.x + 1] = ncount;
  }
}
