//pass
//--blockDim=256 --gridDim=1
// autosync: nvcc=refuses
// 64 KB of static __shared__ memory, past CUDA's 48 KB; a barrier separates the phases.
__global__ void stage(int *out) {
  __shared__ int buf[16384];
  for (int k = threadIdx.x; k < 16384; k += 256) {
    buf[k] = k;
  }
  __syncthreads();
  out[threadIdx.x] = buf[16383 - threadIdx.x];
}
