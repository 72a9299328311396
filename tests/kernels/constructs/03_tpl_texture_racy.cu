//xfail:NOT_ALL_VERIFIED
//--blockDim=64 --gridDim=4
// autosync: races=13-14
// 03_tpl_texture_ok.cu without the barrier: thread t reads s[63 - t] while thread 63 - t
// writes it.  The texture fetches themselves are reads of read-only memory: no race.

texture<float, 1, cudaReadModeElementType> g_tex;

template <typename T>
__global__ void gather(T *out, int n) {
  __shared__ T s[64];
  int t = threadIdx.x;
  s[t] = tex1Dfetch(g_tex, blockIdx.x * 64 + t);
  out[blockIdx.x * 64 + t] = s[63 - t];
}

template __global__ void gather<float>(float *, int);
