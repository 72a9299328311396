//xfail:NOT_ALL_VERIFIED
//--blockDim=128 --gridDim=4
// autosync: races=17-18
// 04_structs_ok_arrayfield.cu where thread t peeks at its partner's last value before the
// barrier: acc[t ^ 1].v[3] (line R2) is written by thread t ^ 1 in its loop (line R1).
// Missed if an array member indexed in a loop and by a constant are different locations.

struct Acc {
  float v[4];
  int n;
};

__global__ void accumulate(const float *in, float *out) {
  __shared__ Acc acc[128];
  int t = threadIdx.x;
  for (int k = 0; k < 4; ++k)
    acc[t].v[k] = in[4 * (blockIdx.x * 128 + t) + k];  // R1
  float peek = acc[t ^ 1].v[3];  // R2
  acc[t].n = 4;
  __syncthreads();
  int u = t ^ 1;
  out[blockIdx.x * 128 + t] = (acc[u].v[0] + peek) / acc[u].n;
}
