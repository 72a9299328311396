//xfail:NOT_ALL_VERIFIED
//--blockDim=128 --gridDim=16
// autosync: races=13-14
// 20_host_launch_ok.cu without the barrier: in rotate<128>, instantiated only through
// run<128>() on the host, thread t reads s[(t + 1) % B] (line R1) while thread t + 1
// stores it (line R1).

template <int B>
__global__ void rotate(float *data) {
  __shared__ float s[B];
  int t = threadIdx.x;
  int g = blockIdx.x * B + t;
  s[t] = data[g];  // R1
  data[g] = s[(t + 1) % B];  // R1
}

template <int B>
void run(float *d) {
  rotate<B><<<16, B>>>(d);
}

void launch_all(float *p) {
  run<128>(p);
}
