//pass
//--blockDim=64 --gridDim=8
// One kernel template, two explicit instantiations (two kernels: shift<1> and shift<4>),
// each checked on its own.  Thread t writes buf[t], and after the barrier reads
// buf[(t + S) % 64]; global data[gid] is read and written by its own thread only.
// Race-free for every S.

template <int S>
__global__ void shift(float *data) {
  __shared__ float buf[64];
  int t = threadIdx.x;
  int gid = blockIdx.x * 64 + t;
  buf[t] = data[gid];
  __syncthreads();
  data[gid] = buf[(t + S) % 64];
}

template __global__ void shift<1>(float *);
template __global__ void shift<4>(float *);
