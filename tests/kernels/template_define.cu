//pass
//--blockDim=128 --gridDim=16
// autosync: defines=BLOCK=128
// Template instantiated with a size that comes from the command line (-DBLOCK=128).

template <int B> __global__ void rotate(float *data) {
  __shared__ float s[B];
  int tid = threadIdx.x;
  s[tid] = data[blockIdx.x * B + tid];
  __syncthreads();
  data[blockIdx.x * B + tid] = s[(tid + B - 1) % B];
}

template __global__ void rotate<BLOCK>(float *data);
