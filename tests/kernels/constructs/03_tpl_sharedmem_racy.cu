//xfail:NOT_ALL_VERIFIED
//--blockDim=128 --gridDim=8
// autosync: races=29-30
// The SharedMemory<T> class-template idiom with a getPointer() method (primary template,
// and an explicit specialisation for double with its own extern __shared__ array); the
// kernel template is instantiated for float and for double (two kernels).  Thread t writes
// buf[t] and reads buf[t ^ 1] with no barrier between: a race in
// both instantiations (on tpl_smem for float, on tpl_smem_d for double).

template <class T> struct SharedMemory {
  __device__ T *getPointer() {
    extern __shared__ T tpl_smem[];
    return tpl_smem;
  }
};

template <> struct SharedMemory<double> {
  __device__ double *getPointer() {
    extern __shared__ double tpl_smem_d[];
    return tpl_smem_d;
  }
};

template <typename T>
__global__ void swap_pairs(T *data) {
  SharedMemory<T> smem;
  T *buf = smem.getPointer();
  unsigned t = threadIdx.x;
  buf[t] = data[blockIdx.x * 128 + t];
  data[blockIdx.x * 128 + t] = buf[t ^ 1];
}

template __global__ void swap_pairs<float>(float *);
template __global__ void swap_pairs<double>(double *);
