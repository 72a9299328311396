//xfail:NOT_ALL_VERIFIED
//--blockDim=64 --gridDim=4
// autosync: races=19-19
// 20_enum_ok.cu where the negated case writes the block's first cell: Order<float>::Negate
// is 4, so the race is reachable only if the enumerator's value is read right.

enum Side { Left, Right };

template <typename T> struct Order {
  enum Mode { Keep = 3, Negate };
  T scale;
  Mode mode;
};

__global__ void apply(float *v, const Order<float> *o, int side) {
  int me = blockIdx.x * blockDim.x + threadIdx.x;
  float x = v[me] * o->scale;
  if (o->mode == Order<float>::Negate && side == Right && (int)Order<float>::Negate == 4)
    v[blockIdx.x * blockDim.x] = x + me;
  else
    v[me] = x;
}
