//xfail:NOT_ALL_VERIFIED
//--blockDim=64 --gridDim=4
// autosync: races=11-12
// 03_tpl_texture_ok.cu without the barrier: thread t reads s[63 - t] while thread 63 - t
// writes it.  The texture fetches themselves are reads of read-only memory: no race.

template <typename T>
__global__ void gather(T *out, int n, cudaTextureObject_t g_tex) {
  __shared__ T s[64];
  int t = threadIdx.x;
  s[t] = tex1Dfetch<T>(g_tex, blockIdx.x * 64 + t);
  out[blockIdx.x * 64 + t] = s[63 - t];
}

template __global__ void gather<float>(float *, int, cudaTextureObject_t);
