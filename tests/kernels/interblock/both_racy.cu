//xfail:NOT_ALL_VERIFIED
//--blockDim=64 --gridDim=2
// Our own kernel: the read and the write of 'data' race inside a block (thread t + 1 writes
// what thread t read: a barrier orders them) and between blocks (block 1 reads what block 0
// writes: no barrier can).  check reports the pair as a race inside a block; fix inserts the
// barrier and then reports the part between blocks.
__global__ void shift(int *data) {
  int v = data[(threadIdx.x + 1) % 64];
  data[threadIdx.x] = v;
}
