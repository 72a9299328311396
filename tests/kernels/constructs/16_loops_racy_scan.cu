//xfail:NOT_ALL_VERIFIED
//--blockDim=512 --gridDim=4
// autosync: races=19-19
// 16_loops_ok_scan.cu with the ping-pong broken (pin = pout: the scan runs in place):
// thread tid writes temp[pout * 512 + tid] while thread tid + offset reads it as
// temp[pin * 512 + tid' - offset] in the same step (line R1 with itself).  Missed if the
// `pin = pout` assignment is dropped and pin keeps its old value.

__global__ void scan_hs(const float *in, float *out) {
  __shared__ float temp[2 * 512];
  int tid = threadIdx.x;
  int pout = 0, pin = 1;
  temp[pout * 512 + tid] = in[blockIdx.x * 512 + tid];
  __syncthreads();
  for (int offset = 1; offset < 512; offset *= 2) {
    pout = 1 - pout;
    pin = pout;
    if (tid >= offset)
      temp[pout * 512 + tid] = temp[pin * 512 + tid] + temp[pin * 512 + tid - offset];  // R1
    else
      temp[pout * 512 + tid] = temp[pin * 512 + tid];
    __syncthreads();
  }
  out[blockIdx.x * 512 + tid] = temp[pout * 512 + tid];
}
