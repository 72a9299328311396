//pass
//--blockDim=256 --gridDim=4
// A buffer chosen by a condition: `float *dst = t < 128 ? lo : hi;`.  The lower half of
// the block fills `lo`, the upper half `hi`, one element per thread; after the barrier
// each thread reads one element of each.  Race-free.

__global__ void split_halves(const float *in, float *out) {
  __shared__ float lo[128];
  __shared__ float hi[128];
  int t = threadIdx.x;
  float *dst = (t < 128) ? lo : hi;
  dst[t % 128] = in[blockIdx.x * 256 + t];
  __syncthreads();
  out[blockIdx.x * 256 + t] = lo[t % 128] + hi[127 - t % 128];
}
