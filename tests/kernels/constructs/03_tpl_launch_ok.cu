//pass
//--blockDim=256 --gridDim=16
// A kernel template instantiated only by its host launch: N comes from the explicit <256>
// at the launch, T is deduced from the argument (double *d_v gives T = double), as nvcc
// does.  Thread t writes s[t]; after the barrier thread t < N / 2 reads s[t + N / 2].
// Race-free.

template <int N, typename T>
__global__ void fold_half(T *v) {
  __shared__ T s[N];
  unsigned t = threadIdx.x;
  s[t] = v[blockIdx.x * N + t];
  __syncthreads();
  if (t < N / 2)
    v[blockIdx.x * N + t] = s[t] + s[t + N / 2];
}

void run_fold(double *d_v, int blocks) {
  fold_half<256><<<blocks, 256>>>(d_v);
}
