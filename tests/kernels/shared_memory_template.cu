//pass
//--blockDim=256 --gridDim=32
// The SharedMemory<T>() idiom plus a template with type and non-type parameters,
// instantiated explicitly.

template <class T> struct SharedMemory {
  __device__ inline operator T *() {
    extern __shared__ int __smem[];
    return (T *)__smem;
  }
};

template <> struct SharedMemory<double> {
  __device__ inline operator double *() {
    extern __shared__ double __smem_d[];
    return (double *)__smem_d;
  }
};

template <class T, unsigned int blockSize, bool doubleIt>
__global__ void shift_copy(const T *in, T *out) {
  T *sdata = SharedMemory<T>();
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * blockSize + tid;
  sdata[tid] = doubleIt ? in[i] + in[i] : in[i];
  __syncthreads();
  out[i] = sdata[(tid + 1) % blockSize];
}

template __global__ void shift_copy<int, 256, false>(const int *in, int *out);
template __global__ void shift_copy<double, 256, true>(const double *in, double *out);
