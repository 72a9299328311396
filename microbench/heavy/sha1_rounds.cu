//pass
//--blockDim=128 --gridDim=1024
// One SHA-1-style compression per thread (our own kernel): an 80-word message schedule in a
// local array and 80 rounds after an early return.
__device__ unsigned int rol(unsigned int x, int n) { return (x << n) | (x >> (32 - n)); }

__global__ void sha1_one_block(const unsigned int *msg, unsigned int *hash, int count) {
  int id = blockIdx.x * blockDim.x + threadIdx.x;
  if (id >= count) return;
  unsigned int w[80];
  for (int t = 0; t < 16; t++) w[t] = msg[id * 16 + t];
  for (int t = 16; t < 80; t++) w[t] = rol(w[t - 3] ^ w[t - 8] ^ w[t - 14] ^ w[t - 16], 1);
  unsigned int a = 0x67452301, b = 0xEFCDAB89, c = 0x98BADCFE, d = 0x10325476, e = 0xC3D2E1F0;
  for (int t = 0; t < 80; t++) {
    unsigned int f, k;
    if (t < 20) { f = (b & c) | (~b & d); k = 0x5A827999; }
    else if (t < 40) { f = b ^ c ^ d; k = 0x6ED9EBA1; }
    else if (t < 60) { f = (b & c) | (b & d) | (c & d); k = 0x8F1BBCDC; }
    else { f = b ^ c ^ d; k = 0xCA62C1D6; }
    unsigned int tmp = rol(a, 5) + f + e + k + w[t];
    e = d; d = c; c = rol(b, 30); b = a; a = tmp;
  }
  hash[id * 5 + 0] = a + 0x67452301;
  hash[id * 5 + 1] = b + 0xEFCDAB89;
  hash[id * 5 + 2] = c + 0x98BADCFE;
  hash[id * 5 + 3] = d + 0x10325476;
  hash[id * 5 + 4] = e + 0xC3D2E1F0;
}
