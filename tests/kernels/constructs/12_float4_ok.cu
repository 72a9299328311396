//pass
//--blockDim=128 --gridDim=8
// float4 vector stores and scalar loads on one shared array: thread t stores the float4
// covering s[4t .. 4t+3]; after the barrier it reads the scalar s[4t + 5], the second
// component of thread t + 1's vector (wrapping).  Race-free.

__global__ void vec_then_scalar(const float4 *in, float *out) {
  __shared__ float s[512];
  unsigned t = threadIdx.x;
  ((float4 *)s)[t] = in[blockIdx.x * 128 + t];
  __syncthreads();
  out[blockIdx.x * 128 + t] = s[(4 * t + 5) % 512];
}
