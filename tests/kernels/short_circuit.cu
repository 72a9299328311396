//pass
//--blockDim=64 --gridDim=4
// && and || guard a shared read, so the read only happens in bounds.

__global__ void short_circuit(int *data) {
  __shared__ int s[64];
  int tid = threadIdx.x;
  s[tid] = data[blockIdx.x * 64 + tid];
  __syncthreads();
  int r = 0;
  if (tid > 0 && s[tid - 1] > 0) {
    r = 1;
  }
  if (tid == 63 || s[tid + 1] < 0) {
    r += 2;
  }
  data[blockIdx.x * 64 + tid] = r;
}
