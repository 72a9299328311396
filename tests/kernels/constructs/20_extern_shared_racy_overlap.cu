//xfail:NOT_ALL_VERIFIED
//--blockDim=256 --gridDim=16
// autosync: races=14-15
// 20_extern_shared_ok.cu with the int array carved one float too early (byte offset
// 255 * sizeof(float)): keys[0] is the same 4 bytes as vals[255], so thread 0's store
// keys[t] (line R1) races with thread 255's store vals[t] (line R1) despite the barrier.

__global__ void mirror_pairs(const float *v, const int *k, float *out) {
  extern __shared__ unsigned char smem[];
  float *vals = reinterpret_cast<float *>(smem);
  int *keys = reinterpret_cast<int *>(smem + 255 * sizeof(float));
  int t = threadIdx.x;
  int g = blockIdx.x * 256 + t;
  vals[t] = v[g];  // R1
  keys[t] = k[g];  // R1
  __syncthreads();
  float w = vals[255 - t];
  int key = keys[255 - t];
  out[g] = key > 0 ? w : -w;
}
