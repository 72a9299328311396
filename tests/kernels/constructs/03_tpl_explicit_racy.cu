//xfail:NOT_ALL_VERIFIED
//--blockDim=64 --gridDim=8
// autosync: races=12-13
// 03_tpl_explicit_ok.cu without the barrier: in both instantiations thread t reads
// buf[(t + S) % 64] while thread (t + S) % 64 writes it.

template <int S>
__global__ void shift(float *data) {
  __shared__ float buf[64];
  int t = threadIdx.x;
  int gid = blockIdx.x * 64 + t;
  buf[t] = data[gid];
  data[gid] = buf[(t + S) % 64];
}

template __global__ void shift<1>(float *);
template __global__ void shift<4>(float *);
