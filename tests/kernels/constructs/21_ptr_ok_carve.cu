//pass
//--blockDim=128 --gridDim=8
// One extern __shared__ buffer carved into a float array of 128 elements and an int array
// right after it (`&vals[128]`): the parts do not overlap, each thread writes its own
// element of both, and reads its mirror elements after the barrier.  Race-free.

__global__ void carve(const float *v, const int *k, float *out) {
  extern __shared__ float smem[];
  float *vals = smem;
  int *keys = (int *)&vals[128];
  int t = threadIdx.x;
  int g = blockIdx.x * 128 + t;
  vals[t] = v[g];
  keys[t] = k[g];
  __syncthreads();
  out[g] = keys[127 - t] > 0 ? vals[127 - t] : 0.0f;
}
