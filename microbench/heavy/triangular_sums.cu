//pass
//--blockDim=1024 --gridDim=1024
// Each thread adds up the entries of the input before its own global index: a loop whose trip
// count is the thread's global index (up to a million), which no unrolling finishes.

__global__ void triangular_sums(float *out, const float *in) {
  unsigned me = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0.0f;
  for (unsigned i = 0; i < me; i++) {
    acc += in[i];
  }
  out[me] = acc;
}
