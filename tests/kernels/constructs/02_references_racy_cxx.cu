//xfail:NOT_ALL_VERIFIED
//--blockDim=128 --gridDim=4
// autosync: races=20-22
// 02_references_ok_cxx.cu without the barrier: the write through the field reference `y` (line R1)
// races with the neighbour's read of p[tid + 1].y (line R1).  Missed if a write through
// a reference to a field is dropped.

__device__ void bump(int &n) { n += 1; }
__device__ float twice(const float &v) { return v + v; }

__global__ void refs(const float *in, float *out) {
  __shared__ float s[128];
  __shared__ float2 p[128];
  unsigned tid = threadIdx.x;
  int count = 0;
  bump(count);
  s[tid] = in[blockIdx.x * 128 + tid] * count;
  float &y = p[tid].y;
  // R1 below
  y = twice(s[tid]);
  // the neighbour read, R1
  out[blockIdx.x * 128 + tid] = p[(tid + 1) % 128].y;
}
