//pass
//--blockDim=256 --gridDim=16
// A CUB-style block reduction class template: BlockReduce<T, BLOCK> keeps a reference to
// a TempStorage struct that the kernel declares __shared__ and hands to the constructor;
// Sum() holds the barriers.  The kernel reduces a sum and a sum of squares through the
// SAME storage, so Sum() ends with a barrier that orders every thread's read of
// temp.data[0] before the next call's stores.  Inside Sum(): one writer per cell per
// step, a barrier after every step.  Race-free.

template <typename T, int BLOCK>
class BlockReduce {
 public:
  struct TempStorage {
    T data[BLOCK];
  };

  __device__ explicit BlockReduce(TempStorage &storage) : temp(storage) {}
  __device__ T Sum(T value);

 private:
  TempStorage &temp;
};

template <typename T, int BLOCK>
__device__ T BlockReduce<T, BLOCK>::Sum(T value) {
  int t = threadIdx.x;
  temp.data[t] = value;
  __syncthreads();
  for (int half = BLOCK / 2; half > 0; half >>= 1) {
    if (t < half)
      temp.data[t] += temp.data[t + half];
    __syncthreads();
  }
  T total = temp.data[0];
  __syncthreads();
  return total;
}

__global__ void moments(const float *in, float2 *out) {
  using Reduce = BlockReduce<float, 256>;
  __shared__ Reduce::TempStorage storage;
  float x = in[blockIdx.x * 256 + threadIdx.x];
  float sum = Reduce(storage).Sum(x);
  float sumsq = Reduce(storage).Sum(x * x);
  if (threadIdx.x == 0)
    out[blockIdx.x] = make_float2(sum, sumsq);
}
