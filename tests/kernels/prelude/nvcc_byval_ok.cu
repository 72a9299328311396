//pass
//--blockDim=256 --gridDim=4
// A class holding a pointer, passed to the kernel by value, whose method stores through
// the pointer: each thread stores its own element.

class Sink {
  int *cells;

public:
  __device__ void put(int v) { cells[blockIdx.x * blockDim.x + threadIdx.x] = v; }
};

__global__ void fill(Sink target) {
  target.put(7);
}
