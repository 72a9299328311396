//xfail:NOT_ALL_VERIFIED
//--blockDim=128 --gridDim=2
// autosync: races=18-18
// 21_ptr_ok_addrlocal.cu with far = t + 1: odd thread t stores into s[t + 1] through the
// pointer, which even thread t + 1 names through its own counter (line R1).  Missed if
// the pointer is taken to name `near` alone.

__global__ void pick_counter(const int *in, int *out) {
  __shared__ int s[256];
  int t = threadIdx.x;
  int near = t;
  int far = t + 1;
  int *slot;
  slot = &near;
  if (t % 2 == 1)
    slot = &far;
  *slot = *slot + 0;
  s[*slot] = in[blockIdx.x * 128 + t];  // R1
  __syncthreads();
  out[blockIdx.x * 128 + t] = s[(t + 129) % 256] + near;
}
