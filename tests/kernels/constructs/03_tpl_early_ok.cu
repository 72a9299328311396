//pass
//--blockDim=128 --gridDim=4
// Explicit instantiations written BEFORE the template's definition (a declaration, the
// instances, then the body further down the file): each instance is a kernel with the
// body defined below.  Tree sum in shared memory with a barrier at every level.

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
    __syncthreads();
  }
  if (me == 0)
    out[blockIdx.x] = part[0];
}
