//pass
//--blockDim=64 --gridDim=4
// A __device__ function that is only declared (defined in another translation unit):
// the verifier must treat its result as unknown but thread-local.

__device__ float external_transform(float v);

__global__ void call_external(float *data) {
  __shared__ float s[64];
  int tid = threadIdx.x;
  s[tid] = external_transform(data[blockIdx.x * 64 + tid]);
  __syncthreads();
  data[blockIdx.x * 64 + tid] = s[63 - tid];
}
