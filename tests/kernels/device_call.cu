//pass
//--blockDim=128 --gridDim=16
// Device functions of several flavours, all inlined by the front end.

static __device__ int clampi(int v, int lo, int hi) {
  return v < lo ? lo : (v > hi ? hi : v);
}

inline __device__ float twice(float v) { return 2.0f * v; }

__forceinline__ __device__ void store_shared(float *s, int i, float v) {
  s[i] = v;
}

__global__ void device_call(const float *in, float *out) {
  __shared__ float s[128];
  int tid = threadIdx.x;
  int gid = blockIdx.x * blockDim.x + tid;
  store_shared(s, tid, twice(in[gid]));
  __syncthreads();
  out[gid] = s[clampi(tid + 1, 0, 127)];
}
