//pass
//--blockDim=256 --gridDim=32
// A class template hands out the dynamically sized shared buffer per element type
// (one extern __shared__ array per specialisation, as real code must), and the reduction
// kernel is a template instantiated explicitly for float.  Tree reduction: thread tid
// writes s[tid] and reads s[tid + half] (tid < half), barrier after each step.  Race-free.

template <class T> struct SharedMem;

template <> struct SharedMem<float> {
  __device__ float *get() {
    extern __shared__ float smem_float[];
    return smem_float;
  }
};

template <> struct SharedMem<int> {
  __device__ int *get() {
    extern __shared__ int smem_int[];
    return smem_int;
  }
};

template <class T, unsigned BLOCK>
__global__ void block_sum(const T *in, T *out) {
  SharedMem<T> shared;
  T *s = shared.get();
  unsigned tid = threadIdx.x;
  s[tid] = in[blockIdx.x * BLOCK + tid];
  __syncthreads();
  for (unsigned half = BLOCK / 2; half > 0; half >>= 1) {
    if (tid < half)
      s[tid] += s[tid + half];
    __syncthreads();
  }
  if (tid == 0)
    out[blockIdx.x] = s[0];
}

template __global__ void block_sum<float, 256>(const float *, float *);
