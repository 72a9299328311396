//pass
//--blockDim=64 --gridDim=4
// A kernel template reading a texture<float, 1, cudaReadModeElementType> (read-only: its
// fetches never race) into shared memory, instantiated explicitly for float.  Thread t
// writes s[t] and, after the barrier, reads s[63 - t].  Race-free.

texture<float, 1, cudaReadModeElementType> g_tex;

template <typename T>
__global__ void gather(T *out, int n) {
  __shared__ T s[64];
  int t = threadIdx.x;
  s[t] = tex1Dfetch(g_tex, blockIdx.x * 64 + t);
  __syncthreads();
  out[blockIdx.x * 64 + t] = s[63 - t];
}

template __global__ void gather<float>(float *, int);
