//xfail:NOT_ALL_VERIFIED
//--blockDim=128 --gridDim=8
// autosync: races=14-15
// 21_ptr_ok_carve.cu with the int array carved one element too early (`&vals[127]`):
// keys[0] is vals[127], so thread 0's store keys[t] (line R1) races with thread 127's
// store vals[t] (line R1) before any barrier.

__global__ void carve(const float *v, const int *k, float *out) {
  extern __shared__ float smem[];
  float *vals = smem;
  int *keys = (int *)&vals[127];
  int t = threadIdx.x;
  int g = blockIdx.x * 128 + t;
  vals[t] = v[g];  // R1
  keys[t] = k[g];  // R1
  __syncthreads();
  out[g] = keys[127 - t] > 0 ? vals[127 - t] : 0.0f;
}
