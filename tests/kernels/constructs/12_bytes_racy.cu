//xfail:NOT_ALL_VERIFIED
//--blockDim=32 --gridDim=1
// autosync: races=13-14
// Byte view of a word array: thread t writes word s[t] (bytes 4t .. 4t+3) and byte b[t],
// which lies in word t / 4, i.e. in the word of thread t / 4.  Threads 1..3 write bytes of
// thread 0's word, threads 4..7 of thread 1's, etc.: write-write races between the two
// lines with different values.  An element-granular model that treats b[t] as s[t] is
// unsound here.

__global__ void byte_view(unsigned int *out) {
  __shared__ unsigned int s[64];
  unsigned char *b = (unsigned char *)s;
  s[threadIdx.x] = threadIdx.x;  // R1
  b[threadIdx.x] = 7;  // R1
  out[threadIdx.x] = threadIdx.x;
}
