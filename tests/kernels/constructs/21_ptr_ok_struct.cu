//pass
//--blockDim=128 --gridDim=1
// A struct holding two pointers, passed by value to a device function that copies from
// one to the other: first into the shared array, then (after the barrier) from the shared
// array, reversed, to the output.  Race-free.

struct Pair {
  const float *src;
  float *dst;
};

__device__ void copy_rev(Pair p, int t, int n, int rev) {
  p.dst[t] = p.src[rev ? n - 1 - t : t];
}

__global__ void reverse(const float *in, float *out) {
  __shared__ float s[128];
  int t = threadIdx.x;
  Pair load = {in, s};
  copy_rev(load, t, 128, 0);
  __syncthreads();
  Pair store = {s, out};
  copy_rev(store, t, 128, 1);
}
