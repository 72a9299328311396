//xfail:NOT_ALL_VERIFIED
//--blockDim=32 --gridDim=1
// A wrong contract over the value a parameter had on entry.
__device__ int doubled(int v) {
  __requires(v >= 0 && v < 1000);
  __ensures(__return_val_int() == __old_int(v) + 1);
  v = v + v;
  return v;
}
__global__ void scale(int *out) {
  out[threadIdx.x] = doubled((int)threadIdx.x);
}
