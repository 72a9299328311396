//xfail:NOT_ALL_VERIFIED
//--blockDim=128 --gridDim=1
// autosync: races=14-14
// 21_ptr_ok_struct.cu without the barrier: thread t reads s[127 - t] (line R1, second
// call) while thread 127 - t may still be writing it (line R1, first call).  Missed if the
// pointers held by the struct are not followed into the device function.

struct Pair {
  const float *src;
  float *dst;
};

__device__ void copy_rev(Pair p, int t, int n, int rev) {
  p.dst[t] = p.src[rev ? n - 1 - t : t];  // R1
}

__global__ void reverse(const float *in, float *out) {
  __shared__ float s[128];
  int t = threadIdx.x;
  Pair load = {in, s};
  copy_rev(load, t, 128, 0);
  Pair store = {s, out};
  copy_rev(store, t, 128, 1);
}
