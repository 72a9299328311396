//pass
//--blockDim=64 --gridDim=4
// Enumerators read in a kernel: a file-scope enum and one declared inside a class
// template, compared with a parameter's member.  Each thread writes its own cell.

enum Side { Left, Right };

template <typename T> struct Order {
  enum Mode { Keep = 3, Negate };
  T scale;
  Mode mode;
};

__global__ void apply(float *v, const Order<float> *o, int side) {
  int me = blockIdx.x * blockDim.x + threadIdx.x;
  float x = v[me] * o->scale;
  if (o->mode == Order<float>::Negate && side == Right)
    x = -x;
  v[me] = x;
}
