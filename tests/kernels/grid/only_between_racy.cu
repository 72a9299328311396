//xfail:NOT_ALL_VERIFIED
//--blockDim=64 --gridDim=4
// Block b writes its slot, then reads the slot of block b + 1: threads of one block never
// touch the same element, so the race is only between blocks.
__global__ void pass_on(int *slots, int *out) {
  unsigned b = blockIdx.x;
  unsigned t = threadIdx.x;
  slots[b * 64u + t] = (int)(b + t);
  out[b * 64u + t] = slots[((b + 1u) % gridDim.x) * 64u + t];
}
