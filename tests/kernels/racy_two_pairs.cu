//xfail:NOT_ALL_VERIFIED
//--blockDim=128 --gridDim=2
// autosync: races=10-12,11-13
// Two independent read-write races on two arrays (Fig. 7 shape, with parameters).

__global__ void racy_pairs(float *out) {
  __shared__ float a[129];
  __shared__ float b[130];
  int tid = threadIdx.x;
  float x = a[tid + 1];
  float y = b[tid + 2];
  a[tid] = x * y;
  b[tid] = x + y;
  out[blockIdx.x * 128 + tid] = x - y;
}
