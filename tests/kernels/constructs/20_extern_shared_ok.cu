//pass
//--blockDim=256 --gridDim=16
// Dynamic shared memory carved into two typed arrays: 'extern __shared__' bytes, a float
// array of 256 values at offset 0 and an int array of 256 keys right after it (byte
// offset 256 * sizeof(float)).  Thread t stores vals[t] and keys[t]; the barrier orders
// the stores before thread t reads the mirrored pair vals[255 - t], keys[255 - t].  The
// two arrays do not overlap.  Race-free.

__global__ void mirror_pairs(const float *v, const int *k, float *out) {
  extern __shared__ unsigned char smem[];
  float *vals = reinterpret_cast<float *>(smem);
  int *keys = reinterpret_cast<int *>(smem + 256 * sizeof(float));
  int t = threadIdx.x;
  int g = blockIdx.x * 256 + t;
  vals[t] = v[g];
  keys[t] = k[g];
  __syncthreads();
  float w = vals[255 - t];
  int key = keys[255 - t];
  out[g] = key > 0 ? w : -w;
}
