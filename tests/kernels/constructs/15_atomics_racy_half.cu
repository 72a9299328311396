//xfail:NOT_ALL_VERIFIED
//--blockDim=256 --gridDim=16
// autosync: races=18-18
// 15_atomics_ok.cu indexing with j / 2: distinct slots j = 2k and 2k + 1 of two threads
// map to the same cell buf[k] (line R1 with itself).  Distinct atomic results must not be
// mistaken for distinct indices.

__global__ void compact(const float *in, float *out, unsigned *counts) {
  __shared__ float buf[256];
  __shared__ int count;
  unsigned tid = threadIdx.x;
  if (tid == 0)
    count = 0;
  __syncthreads();
  float v = in[blockIdx.x * 256 + tid];
  if (v > 0.0f) {
    int j = atomicAdd(&count, 1);
    buf[j / 2] = v;  // R1
  }
  __syncthreads();
  if (tid < count)
    out[blockIdx.x * 256 + tid] = buf[tid];
  if (tid == 0)
    counts[blockIdx.x] = count;
}
