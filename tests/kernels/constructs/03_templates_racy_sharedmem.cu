//xfail:NOT_ALL_VERIFIED
//--blockDim=256 --gridDim=32
// autosync: races=33-33
// 03_templates_ok_sharedmem.cu with the barrier inside the reduction loop moved out of
// it: thread tid writes s[tid] in one step while thread tid - half/2 reads it as
// s[tid' + half'] in the next.  The race is inside the explicitly instantiated template.

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
      s[tid] += s[tid + half];  // R1
  }
  __syncthreads();
  if (tid == 0)
    out[blockIdx.x] = s[0];
}

template __global__ void block_sum<float, 256>(const float *, float *);
