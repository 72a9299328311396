//pass
//--blockDim=[8,4,2] --gridDim=[4,2,2]
// Every component of threadIdx/blockIdx/blockDim/gridDim.

__global__ void dims3(float *out) {
  __shared__ float s[8][8];
  int row = threadIdx.z * blockDim.y + threadIdx.y;
  int lin = row * blockDim.x + threadIdx.x;
  int blk = (blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x;
  s[row][threadIdx.x] = (float)lin;
  __syncthreads();
  float v = s[7 - row][7 - threadIdx.x];
  out[blk * blockDim.x * blockDim.y * blockDim.z + lin] = v;
}
