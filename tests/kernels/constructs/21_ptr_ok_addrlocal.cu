//pass
//--blockDim=128 --gridDim=2
// A pointer to one of two private counters, chosen in a branch and written through:
// odd threads bump `far`, even threads `near`, and each thread then stores into the shared
// slot its chosen counter names.  near = t and far = t + 128 never meet across threads.
// Race-free.

__global__ void pick_counter(const int *in, int *out) {
  __shared__ int s[256];
  int t = threadIdx.x;
  int near = t;
  int far = t + 128;
  int *slot;
  slot = &near;
  if (t % 2 == 1)
    slot = &far;
  *slot = *slot + 0;
  s[*slot] = in[blockIdx.x * 128 + t];
  __syncthreads();
  out[blockIdx.x * 128 + t] = s[(t + 129) % 256] + near;
}
