//pass
//--blockDim=256 --gridDim=256
// One 64-byte MD5-style compression per thread (our own kernel): no shared memory, a 64-round
// loop after an early return.  Shaped like the hash kernels that took minutes to check.
// our own MD5-style compression kernel: one 64-byte block per thread
__constant__ unsigned int Kc[64];
__constant__ unsigned int Sc[64];

__device__ unsigned int rotl(unsigned int x, unsigned int c) { return (x << c) | (x >> (32 - c)); }

__global__ void md5_blocks(const unsigned int *in, unsigned int *digest, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n) return;
  unsigned int M[16];
  for (int j = 0; j < 16; j++) M[j] = in[t * 16 + j];
  unsigned int a0 = 0x67452301, b0 = 0xefcdab89, c0 = 0x98badcfe, d0 = 0x10325476;
  unsigned int A = a0, B = b0, C = c0, D = d0;
  for (int i = 0; i < 64; i++) {
    unsigned int F; int g;
    if (i < 16) { F = (B & C) | (~B & D); g = i; }
    else if (i < 32) { F = (D & B) | (~D & C); g = (5 * i + 1) % 16; }
    else if (i < 48) { F = B ^ C ^ D; g = (3 * i + 5) % 16; }
    else { F = C ^ (B | ~D); g = (7 * i) % 16; }
    F = F + A + Kc[i] + M[g];
    A = D; D = C; C = B;
    B = B + rotl(F, Sc[i]);
  }
  digest[t * 4 + 0] = a0 + A;
  digest[t * 4 + 1] = b0 + B;
  digest[t * 4 + 2] = c0 + C;
  digest[t * 4 + 3] = d0 + D;
}
