//pass
// No GPUVerify flags line here: GPUVerify's rule for a bodiless function does not apply.
// BAD INPUT: a __device__ function that is only declared (defined in another translation
// unit).  A call with no body and no model is an error, not a no-op: AutoSync cannot tell
// which memory the function reads or writes, so it refuses the kernel (exit 2) with one line
// naming the function, rather than guess it pure.

__device__ float external_transform(float v);

__global__ void call_external(float *data) {
  __shared__ float s[64];
  int tid = threadIdx.x;
  s[tid] = external_transform(data[blockIdx.x * 64 + tid]);
  __syncthreads();
  data[blockIdx.x * 64 + tid] = s[63 - tid];
}
