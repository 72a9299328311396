//pass
//--blockDim=256 --gridDim=16
// Arg-min reduction over an anonymous typedef'd struct (value, index) kept in a shared
// array of structs; the per-block result goes to a `Pair *` parameter.  Thread tid writes
// best[tid] (whole struct) and reads best[tid + half] (tid < half); barrier per step.
// Race-free.

typedef struct {
  float x;
  int k;
} Pair;

__device__ Pair smaller(Pair a, Pair b) { return b.x < a.x ? b : a; }

__global__ void block_argmin(const float *v, Pair *result) {
  __shared__ Pair best[256];
  int tid = threadIdx.x;
  int gid = blockIdx.x * 256 + tid;
  best[tid].x = v[gid];
  best[tid].k = gid;
  __syncthreads();
  for (int half = 128; half > 0; half >>= 1) {
    if (tid < half)
      best[tid] = smaller(best[tid], best[tid + half]);
    __syncthreads();
  }
  if (tid == 0)
    result[blockIdx.x] = best[0];
}
