//--blockDim=64 --gridDim=1
// fuzz-expect-exit: 0
// Anonymous structs, typedef'd and in shared memory.
typedef struct { int key; float val; } pair_t;
__global__ void anon(pair_t *out) {
  __shared__ pair_t s[64];
  __shared__ struct { int n; } counter;
  s[threadIdx.x].key = threadIdx.x;
  s[threadIdx.x].val = 0.5f * threadIdx.x;
  if (threadIdx.x == 0) counter.n = 0;
  __syncthreads();
  out[threadIdx.x] = s[(threadIdx.x + 1) % 64];
}
