//xfail:NOT_ALL_VERIFIED
//--blockDim=256 --gridDim=16
// autosync: races=19-23,20-23
// 04_structs_ok_argmin.cu with the barrier after the initial fill dropped: thread tid
// reads best[tid + 128].x / .k (line R1 / R2, inside the whole-struct read) while thread
// tid + 128 writes those fields.  Missed if a struct copy is lowered without its fields.

typedef struct {
  float x;
  int k;
} Pair;

__device__ Pair smaller(Pair a, Pair b) { return b.x < a.x ? b : a; }

__global__ void block_argmin(const float *v, Pair *result) {
  __shared__ Pair best[256];
  int tid = threadIdx.x;
  int gid = blockIdx.x * 256 + tid;
  best[tid].x = v[gid];  // R1
  best[tid].k = gid;  // R2
  for (int half = 128; half > 0; half >>= 1) {
    if (tid < half)
      best[tid] = smaller(best[tid], best[tid + half]);  // R1 R2
    __syncthreads();
  }
  if (tid == 0)
    result[blockIdx.x] = best[0];
}
