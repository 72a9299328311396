//pass
//--blockDim=64 --gridDim=1
// Each thread reads and then writes only its own element: the barrier between them orders
// nothing another thread does.  fix --minimize deletes it.
__global__ void bump(int *data) {
  unsigned t = threadIdx.x;
  int v = data[t] + 1;
  __syncthreads();
  data[t] = v;
}
