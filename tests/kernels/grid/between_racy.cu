//xfail:NOT_ALL_VERIFIED
//--blockDim=64 --gridDim=4
// Each thread publishes a value, then reads its right neighbour's: the neighbour of a
// block's last thread is in the next block, so the race is only between blocks once
// a block barrier orders the rest.
__global__ void shift_left(int *buf, int *out) {
  unsigned g = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned n = gridDim.x * blockDim.x;
  buf[g] = (int)(g * 3u);
  out[g] = buf[(g + 1u) % n];
}
