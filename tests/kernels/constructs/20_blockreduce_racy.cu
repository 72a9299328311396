//xfail:NOT_ALL_VERIFIED
//--blockDim=256 --gridDim=16
// autosync: races=25-32
// 20_blockreduce_ok.cu without the barrier at the end of Sum(): the TempStorage is reused
// by the second call, whose store temp.data[t] = value by thread 0 (line R1) races with
// another thread's read of temp.data[0] at the end of the first call (line R1).

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
  temp.data[t] = value;  // R1
  __syncthreads();
  for (int half = BLOCK / 2; half > 0; half >>= 1) {
    if (t < half)
      temp.data[t] += temp.data[t + half];
    __syncthreads();
  }
  T total = temp.data[0];  // R1
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
