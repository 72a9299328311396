//pass
//--blockDim=64 --gridDim=1
// Our own kernel: thread t writes a[t * s] with s > 0 in int.  Two threads meet only where
// t * s overflows, which is undefined behaviour: no defined execution races.
__global__ void scaled(int *a, int s) {
  int t = threadIdx.x;
  if (s > 0)
    a[t * s] = t;
}
