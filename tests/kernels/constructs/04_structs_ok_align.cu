//pass
//--blockDim=64 --gridDim=4
// __align__(16) makes each Slot 16 bytes although it holds one float: thread t writes
// s[t].v (bytes 16t .. 16t+3) and reads it back through a float pointer over the array,
// as f[4t].  A model that ignores the alignment (4-byte Slots) puts f[4t] in s[4t], which
// thread 4t writes: a false race.  Race-free.

struct __align__(16) Slot {
  float v;
};

__global__ void slots(float *out) {
  __shared__ Slot s[64];
  int t = threadIdx.x;
  s[t].v = 2.0f * t;
  float *f = (float *)s;
  out[blockIdx.x * 64 + t] = f[4 * t];
}
