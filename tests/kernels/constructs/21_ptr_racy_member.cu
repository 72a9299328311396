//xfail:NOT_ALL_VERIFIED
//--blockDim=128 --gridDim=2
// autosync: races=27-27,27-28
// 21_ptr_ok_member.cu with the copy's member left naming `b`: the last store writes b
// where line R1 wrote it, thread t over element t of the same block (R2 against R1), and
// the stride of 0 makes every thread of a block write the same element of b (R1).  Missed
// if the member still named `a` after being set again.

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
  r.lane.stride = 0;
  r.base = blockIdx.x * 128;
  r.lane.dst = b;
  Route copy = r;
  float *w = r.lane.dst;
  w[r.base + threadIdx.x * r.lane.stride] = in[r.base + threadIdx.x];  // R1
  copy.lane.dst[r.base + threadIdx.x] = 0.0f;  // R2
}
