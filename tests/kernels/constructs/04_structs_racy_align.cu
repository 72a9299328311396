//xfail:NOT_ALL_VERIFIED
//--blockDim=64 --gridDim=4
// autosync: races=16-18
// 04_structs_ok_align.cu reading f[4t + 4]: with 16-byte Slots that is s[t + 1].v, which
// thread t + 1 writes (line R1) while thread t reads it (line R2), with no barrier between.

struct __align__(16) Slot {
  float v;
};

__global__ void slots(float *out) {
  __shared__ Slot s[64];
  int t = threadIdx.x;
  if (t < 63) {
    float *f = (float *)s;
    s[t].v = 2.0f * t;  // R1
    float *g = f + 4;
    out[blockIdx.x * 64 + t] = g[4 * t];  // R2
  }
}
