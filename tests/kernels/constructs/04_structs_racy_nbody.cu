//xfail:NOT_ALL_VERIFIED
//--blockDim=128 --gridDim=4
// autosync: races=36-40,37-42
// 04_structs_ok_nbody.cu without the barrier after filling the tile: thread t reads
// tile[j].pos and tile[j].mass for every j while thread j writes them (lines R1, R2).

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
  tile[t].pos = me.pos;  // R1
  tile[t].mass = me.mass;  // R2
  float3 acc = make_float3(0.0f, 0.0f, 0.0f);
  for (int j = 0; j < 128; ++j) {
    float3 d = tile[j].pos - me.pos;  // R1
    float r2 = dot(d, d) + 1e-3f;
    acc = acc + d * (tile[j].mass / (r2 * sqrtf(r2)));  // R2
  }
  FloatBits b;
  b.f = acc.x;
  b.u &= 0x7fffffffu;  // |acc.x|
  float ax = fminf(fmaxf(b.f, p.clamp.lo), p.clamp.hi);
  bodies[gid].vel = me.vel + make_float3(ax, acc.y, acc.z) * p.dt;
}
