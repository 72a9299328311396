//xfail:NOT_ALL_VERIFIED
//--blockDim=256 --gridDim=16
// autosync: races=17-18,19-19
// 15_atomics_ok.cu with the counter bumped non-atomically: `int j = count; count = j + 1;`
// races (read line R1 / write line R1, write-write on R1's second line) and two threads
// that read the same j write the same buf[j] (line R2 with itself).

__global__ void compact(const float *in, float *out, unsigned *counts) {
  __shared__ float buf[256];
  __shared__ int count;
  unsigned tid = threadIdx.x;
  if (tid == 0)
    count = 0;
  __syncthreads();
  float v = in[blockIdx.x * 256 + tid];
  if (v > 0.0f) {
    int j = count;  // R1
    count = j + 1;  // R1
    buf[j] = v;  // R2
  }
  __syncthreads();
  if (tid < count)
    out[blockIdx.x * 256 + tid] = buf[tid];
  if (tid == 0)
    counts[blockIdx.x] = count;
}
