//xfail:NOT_ALL_VERIFIED
//--blockDim=256 --gridDim=16
// autosync: races=22-22
// 15_atomics_ok.cu with atomicAdd(&count, 0): every thread gets the SAME slot j, so
// all positive values are written to one cell buf[j] (line R1 with itself).  A model
// that gives every atomic a fresh distinct result is unsound here.

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
    int j = atomicAdd(&count, 0);
    buf[j] = v;  // R1
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
