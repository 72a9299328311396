//pass
//--blockDim=128 --gridDim=16
// A kernel template whose template argument comes only from a host launch inside a host
// function template: run<B>() launches rotate<B><<<16, B>>>, and the host function
// launch_all() calls run<128>() explicitly.  Nothing else instantiates rotate.  Thread t
// stores s[t]; the barrier orders the stores before thread t reads s[(t + 1) % B].
// Race-free.

template <int B>
__global__ void rotate(float *data) {
  __shared__ float s[B];
  int t = threadIdx.x;
  int g = blockIdx.x * B + t;
  s[t] = data[g];
  __syncthreads();
  data[g] = s[(t + 1) % B];
}

template <int B>
void run(float *d) {
  rotate<B><<<16, B>>>(d);
}

void launch_all(float *p) {
  run<128>(p);
}
