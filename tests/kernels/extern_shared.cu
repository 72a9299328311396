//pass
//--blockDim=128 --gridDim=32
// Dynamically sized shared memory: neighbour sum within a block.

extern __shared__ float dyn[];

__global__ void neighbour_sum(const float *in, float *out) {
  int tid = threadIdx.x;
  int gid = blockIdx.x * blockDim.x + tid;
  dyn[tid] = in[gid];
  __syncthreads();
  float left = tid > 0 ? dyn[tid - 1] : 0.0f;
  float right = tid + 1 < blockDim.x ? dyn[tid + 1] : 0.0f;
  out[gid] = left + dyn[tid] + right;
}
