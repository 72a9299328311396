//pass
//--blockDim=64 --gridDim=1
// Barriers fix --minimize never deletes, though none is needed: one whose value is used and
// one inside a macro expansion.
#define SYNC_ALL __syncthreads()
__global__ void keep(int *data, int *flag) {
  unsigned t = threadIdx.x;
  int v = data[t];
  int any = __syncthreads_or(v > 0);
  SYNC_ALL;
  data[t] = v + any;
}
