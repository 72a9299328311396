//xfail:NOT_ALL_VERIFIED
//--blockDim=512 --gridDim=8
// autosync: races=16-16
// 02_references_ok_reflocal.cu with the barrier inside the loop dropped: thread tid
// writes s[tid] through the reference `acc` while thread tid - stride/2 of the next step
// reads it as s[tid' + stride'].  Missed if the write through `acc` is dropped.

__global__ void block_sum(const float *in, float *out) {
  __shared__ float s[512];
  unsigned tid = threadIdx.x;
  s[tid] = in[blockIdx.x * 512 + tid];
  __syncthreads();
  float &acc = s[tid];
  for (unsigned stride = 256; stride > 0; stride >>= 1) {
    if (tid < stride)
      acc += s[tid + stride];  // R1
  }
  __syncthreads();
  if (tid == 0)
    out[blockIdx.x] = acc;
}
