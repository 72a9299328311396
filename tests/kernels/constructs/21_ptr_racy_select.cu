//xfail:NOT_ALL_VERIFIED
//--blockDim=256 --gridDim=4
// autosync: races=13-13
// 21_ptr_ok_select.cu indexing the chosen buffer by t % 64: threads t and t + 64 of the
// same half write the same element (line R1).  Missed if the store through `dst` is bound
// to one array (the race is inside `lo` for one half and inside `hi` for the other).

__global__ void split_halves(const float *in, float *out) {
  __shared__ float lo[128];
  __shared__ float hi[128];
  int t = threadIdx.x;
  float *dst = (t < 128) ? lo : hi;
  dst[t % 64] = in[blockIdx.x * 256 + t];  // R1
  __syncthreads();
  out[blockIdx.x * 256 + t] = lo[t % 128] + hi[127 - t % 128];
}
