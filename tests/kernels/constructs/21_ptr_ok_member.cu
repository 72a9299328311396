//pass
//--blockDim=128 --gridDim=2
// A pointer kept in a struct member, set again, copied with the struct (into a struct
// that nests it) and read back: the writes through it go to `b`, one element per thread;
// the copy's own member is set to `a` without changing the original.  Race-free.

struct Lane {
  float *dst;
  int stride;
};

struct Route {
  Lane lane;
  int base;
};

__global__ void route(const float *in, float *a, float *b) {
  Route r;
  r.lane.dst = a;
  r.lane.stride = 1;
  r.base = blockIdx.x * 128;
  r.lane.dst = b;
  Route copy = r;
  copy.lane.dst = a;
  float *w = r.lane.dst;
  w[r.base + threadIdx.x * r.lane.stride] = in[r.base + threadIdx.x];
  copy.lane.dst[r.base + threadIdx.x] = 0.0f;
}
