//pass
//--blockDim=64 --gridDim=4
// A kernel template reading a texture object through tex1Dfetch<T> (read-only: its
// fetches never race) into shared memory, instantiated explicitly for float.  Thread t
// writes s[t] and, after the barrier, reads s[63 - t].  Race-free.

template <typename T>
__global__ void gather(T *out, int n, cudaTextureObject_t g_tex) {
  __shared__ T s[64];
  int t = threadIdx.x;
  s[t] = tex1Dfetch<T>(g_tex, blockIdx.x * 64 + t);
  __syncthreads();
  out[blockIdx.x * 64 + t] = s[63 - t];
}

template __global__ void gather<float>(float *, int, cudaTextureObject_t);
