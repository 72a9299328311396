//xfail:NOT_ALL_VERIFIED
//--blockDim=256 --gridDim=16
// autosync: races=13-15
// A kernel template instantiated only by its host launch: N comes from the explicit <256>
// at the launch, T is deduced from the argument (double *d_v gives T = double), as nvcc
// does.  Without the barrier: thread t < N / 2 reads s[t + N / 2] while thread t + N / 2
// writes it.

template <int N, typename T>
__global__ void fold_half(T *v) {
  __shared__ T s[N];
  unsigned t = threadIdx.x;
  s[t] = v[blockIdx.x * N + t];
  if (t < N / 2)
    v[blockIdx.x * N + t] = s[t] + s[t + N / 2];
}

void run_fold(double *d_v, int blocks) {
  fold_half<256><<<blocks, 256>>>(d_v);
}
