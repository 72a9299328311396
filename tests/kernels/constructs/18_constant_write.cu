//xfail:NOT_ALL_VERIFIED
//--blockDim=64 --gridDim=4
// autosync: constant_write=13
// A store to __constant__ memory from device code: constant memory is read-only for
// kernels (nvcc only warns "Cannot store to pointer that points to constant memory
// space"), so this is an error whatever the threads do.

__constant__ float c_scale[64];

__global__ void rescale(const float *in, float *out) {
  int t = threadIdx.x;
  float v = in[blockIdx.x * 64 + t] * c_scale[t];
  c_scale[t] = v;  // R1
  out[blockIdx.x * 64 + t] = v;
}
