//pass
//--blockDim=64 --gridDim=4
// Byte view, race-free: each thread writes the 4 bytes of ITS OWN word through an
// unsigned char pointer (bytes 4t .. 4t+3 = word s[t]), packing four 8-bit channels; after
// the barrier it reads the neighbouring word as a whole.  Byte and word accesses of
// different threads never overlap before the barrier.

__global__ void pack_rgba(const float *rgba, unsigned int *out) {
  __shared__ unsigned int s[64];
  unsigned char *b = (unsigned char *)s;
  unsigned t = threadIdx.x;
  const float *px = rgba + 4 * (blockIdx.x * 64 + t);
  for (int c = 0; c < 4; ++c)
    b[4 * t + c] = (unsigned char)(255.0f * fminf(fmaxf(px[c], 0.0f), 1.0f));
  __syncthreads();
  out[blockIdx.x * 64 + t] = s[(t + 1) % 64];
}
