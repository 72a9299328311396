//xfail:NOT_ALL_VERIFIED
//--blockDim=64 --gridDim=2
// autosync: races=15-16
// 12_uchar4_ok.cu with the char view indexed by t: thread t writes byte t, which is byte
// t % 4 of word t / 4 -- byte .y of word t / 4 is written by thread t / 4 through the
// uchar4 view (line R1 with line R1) when t % 4 == 1.

__global__ void set_bytes(unsigned int *out) {
  __shared__ unsigned int s[64];
  unsigned t = threadIdx.x;
  s[t] = 0u;
  uchar4 *p = (uchar4 *)s;
  unsigned char *b = (unsigned char *)s;
  __syncthreads();
  p[t].y = 1;  // R1
  b[t] = 2;  // R1
  __syncthreads();
  out[blockIdx.x * 64 + t] = s[(t + 1) % 64];
}
