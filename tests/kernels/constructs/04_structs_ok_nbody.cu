//pass
//--blockDim=128 --gridDim=4
// One n-body step with struct machinery: an __align__(16) struct, a struct that inherits
// from it, a nested anonymous struct inside a parameter struct passed BY VALUE, a union
// for a bit trick, and arrays of structs in global (bodies) and shared (tile) memory.
// Thread t writes tile[t] once, the barrier orders it before every thread reads all of
// tile, and each thread updates only its own bodies[gid].  Race-free.

#include "vec_math.h"

struct __align__(16) Particle {
  float3 pos;
  float mass;
};

struct Body : Particle {
  float3 vel;
  float pad;
};

struct StepParams {
  float dt;
  struct {
    float lo, hi;
  } clamp;
};

union FloatBits {
  float f;
  unsigned u;
};

__global__ void nbody_step(Body *bodies, StepParams p) {
  __shared__ Particle tile[128];
  int t = threadIdx.x;
  int gid = blockIdx.x * 128 + t;
  Body me = bodies[gid];
  tile[t].pos = me.pos;
  tile[t].mass = me.mass;
  __syncthreads();
  float3 acc = make_float3(0.0f, 0.0f, 0.0f);
  for (int j = 0; j < 128; ++j) {
    float3 d = tile[j].pos - me.pos;
    float r2 = dot(d, d) + 1e-3f;
    acc = acc + d * (tile[j].mass / (r2 * sqrtf(r2)));
  }
  FloatBits b;
  b.f = acc.x;
  b.u &= 0x7fffffffu;  // |acc.x|
  float ax = fminf(fmaxf(b.f, p.clamp.lo), p.clamp.hi);
  bodies[gid].vel = me.vel + make_float3(ax, acc.y, acc.z) * p.dt;
}
