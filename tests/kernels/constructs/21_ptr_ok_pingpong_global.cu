//pass
//--blockDim=64 --gridDim=1
// The ping-pong of 21_ptr_ok_pingpong.cu over two global buffers given as kernel
// parameters: the parameters themselves are swapped after each step, and the barrier
// orders one step's writes before the next step's reads.  Race-free.

__global__ void jacobi(float *x, float *y) {
  int t = threadIdx.x;
  for (int it = 0; it < 3; ++it) {
    float left = t > 0 ? x[t - 1] : 0.0f;
    float right = t < 63 ? x[t + 1] : 0.0f;
    y[t] = 0.5f * (left + right);
    __syncthreads();
    float *swap = x;
    x = y;
    y = swap;
  }
}
