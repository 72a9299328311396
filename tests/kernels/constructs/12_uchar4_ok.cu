//pass
//--blockDim=64 --gridDim=2
// A uchar4 view of a word array: thread t sets byte .y of word t (byte 4t + 1) and byte
// 4t + 3 through a char view; then, after the barrier, reads word t + 1.  Race-free:
// each thread only touches its own word before the barrier.

__global__ void set_bytes(unsigned int *out) {
  __shared__ unsigned int s[64];
  unsigned t = threadIdx.x;
  s[t] = 0u;
  uchar4 *p = (uchar4 *)s;
  unsigned char *b = (unsigned char *)s;
  p[t].y = 1;
  b[4 * t + 3] = 2;
  __syncthreads();
  out[blockIdx.x * 64 + t] = s[(t + 1) % 64];
}
