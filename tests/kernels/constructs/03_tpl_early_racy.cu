//xfail:NOT_ALL_VERIFIED
//--blockDim=128 --gridDim=4
// autosync: races=19-19
// 03_tpl_early_ok.cu without the barrier inside the loop: a thread adds part[me + half]
// while the thread that owns it may still be adding into it one level down.

template <typename V, int N> __global__ void fold(V *in, V *out);
template __global__ void fold<int, 128>(int *in, int *out);
template __global__ void fold<float, 128>(float *in, float *out);

template <typename V, int N>
__global__ void fold(V *in, V *out) {
  __shared__ V part[N];
  unsigned me = threadIdx.x;
  part[me] = in[blockIdx.x * N + me];
  __syncthreads();
  for (unsigned half = N / 2; half > 0; half /= 2) {
    if (me < half)
      part[me] += part[me + half];
  }
  __syncthreads();
  if (me == 0)
    out[blockIdx.x] = part[0];
}
