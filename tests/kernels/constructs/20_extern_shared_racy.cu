//xfail:NOT_ALL_VERIFIED
//--blockDim=256 --gridDim=16
// autosync: races=14-16,15-17
// 20_extern_shared_ok.cu without the barrier: thread t reads vals[255 - t] (line R1) and
// keys[255 - t] (line R2) of the carved dynamic shared memory while thread 255 - t stores
// them (lines R1, R2).

__global__ void mirror_pairs(const float *v, const int *k, float *out) {
  extern __shared__ unsigned char smem[];
  float *vals = reinterpret_cast<float *>(smem);
  int *keys = reinterpret_cast<int *>(smem + 256 * sizeof(float));
  int t = threadIdx.x;
  int g = blockIdx.x * 256 + t;
  vals[t] = v[g];  // R1
  keys[t] = k[g];  // R2
  float w = vals[255 - t];  // R1
  int key = keys[255 - t];  // R2
  out[g] = key > 0 ? w : -w;
}
