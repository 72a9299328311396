//xfail:NOT_ALL_VERIFIED
//--blockDim=64 --gridDim=4
// autosync: races=10-12
// A rotation by half a block: thread t reads what thread t + 32 (the other warp) wrote.
// The __syncwarp() orders only the lanes of one warp, so the write (line R1) and the read
// (line R2) still race across the two warps; only a __syncthreads() fixes it.

__global__ void rotate(const float *in, float *out) {
  __shared__ float s[64];
  s[threadIdx.x] = in[blockIdx.x * 64 + threadIdx.x];  // R1
  __syncwarp();
  out[blockIdx.x * 64 + threadIdx.x] = s[(threadIdx.x + 32) % 64];  // R2
}
