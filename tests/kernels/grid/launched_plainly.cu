//xfail:NOT_ALL_VERIFIED
//--blockDim=64 --gridDim=4
// only_between_racy.cu's kernel launched with <<<…>>>: not cooperative, so no grid barrier
// without --grid-sync.
__global__ void pass_on(int *slots, int *out) {
  unsigned b = blockIdx.x;
  unsigned t = threadIdx.x;
  slots[b * 64u + t] = (int)(b + t);
  out[b * 64u + t] = slots[((b + 1u) % gridDim.x) * 64u + t];
}

void run(int *slots, int *out) {
  pass_on<<<4, 64>>>(slots, out);
}
