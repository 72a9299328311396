//xfail:NOT_ALL_VERIFIED
//--blockDim=128 --gridDim=4
// autosync: races=16-21,23-23
// 21_ptr_ok_structparam.cu without the barrier (line 21 writes tile[t] while thread t+1
// reads it in left_of, line 16) and with b.out written at i / 2, so two threads store the
// same element (line 23).  Both races are missed if the struct's pointers are not
// followed, or if b.out is taken for a copy of the argument.

struct Buffers {
  const float *in;
  float *out;
  int n;
  float scale;
};

__device__ float left_of(const float *tile, int t) { return t > 0 ? tile[t - 1] : 0.0f; }

__global__ void smooth(Buffers b) {
  __shared__ float tile[128];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  tile[threadIdx.x] = i < b.n ? b.in[i] : 0.0f;
  float left = left_of(tile, threadIdx.x);
  if (i < b.n) b.out[i / 2] = b.scale * (tile[threadIdx.x] + left);
}
