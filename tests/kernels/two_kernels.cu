//pass
//--blockDim=128 --gridDim=8
// Two kernels in one file; each must be analysed on its own.

__global__ void scale(float *data, float f) {
  __shared__ float s[128];
  int tid = threadIdx.x;
  s[tid] = data[blockIdx.x * 128 + tid] * f;
  __syncthreads();
  data[blockIdx.x * 128 + tid] = s[127 - tid];
}

__global__ void offset(float *data, float d) {
  __shared__ float s[128];
  int tid = threadIdx.x;
  s[tid] = data[blockIdx.x * 128 + tid];
  __syncthreads();
  data[blockIdx.x * 128 + tid] = s[(tid + 1) % 128] + d;
}
