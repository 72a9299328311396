//pass
//--blockDim=64 --gridDim=4
// 19_syncwarp_racy_crosswarp.cu with the rotation kept inside each warp: thread t reads
// what lane (t + 16) % 32 of its own warp wrote, so the __syncwarp() suffices.

__global__ void rotate(const float *in, float *out) {
  __shared__ float s[64];
  s[threadIdx.x] = in[blockIdx.x * 64 + threadIdx.x];
  __syncwarp();
  out[blockIdx.x * 64 + threadIdx.x] = s[threadIdx.x / 32 * 32 + (threadIdx.x + 16) % 32];
}
