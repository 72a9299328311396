//pass
//--blockDim=64 --gridDim=1
// BAD INPUT: a missing closing parenthesis and semicolon; the front end must report the
// line instead of crashing.

__global__ void broken(int *data) {
  __shared__ int s[64];
  int tid = threadIdx.x;
  s[tid] = data[tid;
  __syncthreads()
  data[tid] = s[63 - tid];
}
