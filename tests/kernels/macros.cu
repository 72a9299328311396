//pass
//--blockDim=64 --gridDim=4
// Object-like and function-like macros in indices and bounds.

#define N 64
#define HALF (N / 2)
#define IDX(b, t) ((b) * N + (t))
#define SWAP_PARTNER(t) ((t) ^ 1)

__global__ void macro_kernel(int *data) {
  __shared__ int s[N];
  int tid = threadIdx.x;
  s[tid] = data[IDX(blockIdx.x, tid)];
  __syncthreads();
  int v = s[SWAP_PARTNER(tid)];
  data[IDX(blockIdx.x, tid)] = tid < HALF ? v : -v;
}
