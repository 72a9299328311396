//pass
//--blockDim=256 --gridDim=8
// Different fields of one struct written by different threads: thread t writes c[t].lo
// and c[t + 1].hi (a C++ struct used without the `struct` keyword).  Cell c[t] thus gets
// .lo from thread t and .hi from thread t - 1: distinct bytes, no race.  The barrier
// orders all writes before the reads.  Race-free.

struct Cell {
  float lo;
  float hi;
};

__global__ void edge_weights(const float *w, float *out) {
  __shared__ Cell c[257];
  int t = threadIdx.x;
  float v = w[blockIdx.x * 256 + t];
  c[t].lo = v;
  c[t + 1].hi = 2.0f * v;
  if (t == 0)
    c[0].hi = 0.0f;
  __syncthreads();
  out[blockIdx.x * 256 + t] = c[t].lo + c[t].hi;
}
