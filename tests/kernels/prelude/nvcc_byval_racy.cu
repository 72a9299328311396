//xfail:NOT_ALL_VERIFIED
//--blockDim=256 --gridDim=4
// autosync: races=11-11
// nvcc_byval_ok.cu where the method stores into the block's first element:
// the threads of a block write different values to one cell.

class Sink {
  int *cells;

public:
  __device__ void put(int v) { cells[blockIdx.x * blockDim.x] = v; }
};

__global__ void fill(Sink target) {
  target.put((int)threadIdx.x);
}
