//xfail:NOT_ALL_VERIFIED
//--blockDim=64 --gridDim=4
// autosync: races=14-15
// 12_bytes_ok.cu without the barrier: thread t reads word s[t + 1] (line R1) while thread
// t + 1 writes its bytes 4t+4 .. 4t+7 (line R1).  Byte-granular writes and a word-granular
// read must be seen to overlap.

__global__ void pack_rgba(const float *rgba, unsigned int *out) {
  __shared__ unsigned int s[64];
  unsigned char *b = (unsigned char *)s;
  unsigned t = threadIdx.x;
  const float *px = rgba + 4 * (blockIdx.x * 64 + t);
  for (int c = 0; c < 4; ++c)
    b[4 * t + c] = (unsigned char)(255.0f * fminf(fmaxf(px[c], 0.0f), 1.0f));  // R1
  out[blockIdx.x * 64 + t] = s[(t + 1) % 64];  // R1
}
