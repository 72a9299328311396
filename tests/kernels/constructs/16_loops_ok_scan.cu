//pass
//--blockDim=512 --gridDim=4
// Hillis-Steele inclusive scan of 512 elements with ping-pong buffers: in each step the
// thread reads buffer `pin` and writes buffer `pout = 1 - pout`, and the barrier ends the
// step.  Within a step reads and writes go to different halves of temp; the invariant
// needed is "pout is 0 or 1 and pin == 1 - pout".  Race-free.

__global__ void scan_hs(const float *in, float *out) {
  __shared__ float temp[2 * 512];
  int tid = threadIdx.x;
  int pout = 0, pin = 1;
  temp[pout * 512 + tid] = in[blockIdx.x * 512 + tid];
  __syncthreads();
  for (int offset = 1; offset < 512; offset *= 2) {
    pout = 1 - pout;
    pin = 1 - pout;
    if (tid >= offset)
      temp[pout * 512 + tid] = temp[pin * 512 + tid] + temp[pin * 512 + tid - offset];
    else
      temp[pout * 512 + tid] = temp[pin * 512 + tid];
    __syncthreads();
  }
  out[blockIdx.x * 512 + tid] = temp[pout * 512 + tid];
}
