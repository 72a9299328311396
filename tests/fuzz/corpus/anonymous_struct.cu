//--blockDim=64 --gridDim=1
// fuzz-expect-exit: 0
// Anonymous structs and unions, typedef'd and in shared memory.
typedef struct { int key; float val; } pair_t;
typedef union { int i; float f; } pun_t;
__global__ void anon(pair_t *out) {
  __shared__ pair_t s[64];
  __shared__ struct { int n; } counter;
  pun_t p;
  p.i = threadIdx.x;
  s[threadIdx.x].key = p.i;
  s[threadIdx.x].val = p.f;
  if (threadIdx.x == 0) counter.n = 0;
  __syncthreads();
  out[threadIdx.x] = s[(threadIdx.x + 1) % 64];
}
