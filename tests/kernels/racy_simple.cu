//xfail:NOT_ALL_VERIFIED
//--blockDim=64 --gridDim=4
// autosync: races=9-10
// Shift left through shared memory without a barrier: read-write race.

__global__ void racy_shift(int *data) {
  __shared__ int s[65];
  int tid = threadIdx.x;
  int v = s[tid + 1];
  s[tid] = v + data[blockIdx.x * 64 + tid];
  data[blockIdx.x * 64 + tid] = v;
}
