//pass
//--blockDim=64 --gridDim=1
// __CUDA_ARCH__, __CUDACC__ and __NVCC__ are defined when device code is compiled: the
// #if __CUDA_ARCH__ branch (the neighbour read) is the one analysed, not the host one.
#if !defined(__CUDACC__) || !defined(__NVCC__)
#error "not compiled as CUDA"
#endif

__global__ void rotate(int *a) {
  __shared__ int s[64];
  int t = threadIdx.x;
  s[t] = a[t];
  __syncthreads();
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 300
  a[t] = s[(t + 1) % 64];
#else
  a[t] = s[t];
#endif
}
