//pass
//--blockDim=128 --gridDim=1
// A pointer to a pointer: a device function advances the caller's cursor through
// `float **`.  Each thread writes its own element through the cursor, then the cursor
// moves to the second half of the buffer and each thread writes its element there.
// Race-free.

__device__ void put(float **cursor, int t, float v) {
  (*cursor)[t] = v;
  *cursor += 128;
}

__global__ void fill(const float *in, float *out) {
  __shared__ float s[256];
  int t = threadIdx.x;
  float *cur = s;
  put(&cur, t, in[t]);
  put(&cur, t, 2.0f * in[t]);
  __syncthreads();
  out[t] = s[255 - t] + s[t];
}
