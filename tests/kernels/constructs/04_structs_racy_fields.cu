//xfail:NOT_ALL_VERIFIED
//--blockDim=256 --gridDim=8
// autosync: races=18-19
// 04_structs_ok_fields.cu with the index discipline broken: thread t writes c[t + 1].lo
// instead of .hi, so thread t and thread t + 1 both write field .lo of c[t + 1] with
// different values.  A model that merges all fields of a struct cannot tell this from the
// race-free kernel; one that ignores fields misses nothing here but flags the ok kernel.

struct Cell {
  float lo;
  float hi;
};

__global__ void edge_weights(const float *w, float *out) {
  __shared__ Cell c[257];
  int t = threadIdx.x;
  float v = w[blockIdx.x * 256 + t];
  c[t].lo = v;  // R1
  c[t + 1].lo = 2.0f * v;  // R1
  if (t == 0)
    c[0].hi = 0.0f;
  __syncthreads();
  out[blockIdx.x * 256 + t] = c[t].lo + c[t].hi;
}
