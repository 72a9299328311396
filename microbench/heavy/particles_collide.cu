//pass
//--blockDim=64 --gridDim=256
// Issue 28, item 4: the shape of a kernel that timed out at 60 s (our own code).
// Particle collisions on a uniform grid (our own kernel): each particle visits the 27 cells
// around its own, walks the particles sorted into each cell and sums spring forces; the
// new velocity goes to the particle's original slot.
struct Grid { float3 origin; float3 cell; int3 size; float radius; float spring; };
__constant__ Grid grid;
__device__ int3 cellOf(float3 p) {
  return make_int3((int)floorf((p.x - grid.origin.x) / grid.cell.x),
                   (int)floorf((p.y - grid.origin.y) / grid.cell.y),
                   (int)floorf((p.z - grid.origin.z) / grid.cell.z));
}
__device__ unsigned hashOf(int3 c) {
  c.x = c.x & (grid.size.x - 1);
  c.y = c.y & (grid.size.y - 1);
  c.z = c.z & (grid.size.z - 1);
  return (unsigned)((c.z * grid.size.y + c.y) * grid.size.x + c.x);
}
__device__ float3 push(float3 a, float3 b) {
  float3 d = make_float3(b.x - a.x, b.y - a.y, b.z - a.z);
  float dist = sqrtf(d.x * d.x + d.y * d.y + d.z * d.z);
  float3 f = make_float3(0.0f, 0.0f, 0.0f);
  if (dist < 2.0f * grid.radius && dist > 0.0f) {
    float k = -grid.spring * (2.0f * grid.radius - dist) / dist;
    f = make_float3(k * d.x, k * d.y, k * d.z);
  }
  return f;
}
__device__ float3 cellForce(int3 c, unsigned me, float3 pos, const float4 *sortedPos,
                            const unsigned *first, const unsigned *last) {
  unsigned h = hashOf(c);
  unsigned start = first[h];
  float3 f = make_float3(0.0f, 0.0f, 0.0f);
  if (start != 0xffffffffu) {
    unsigned end = last[h];
    for (unsigned j = start; j < end; j++) {
      if (j != me) {
        float4 q = sortedPos[j];
        float3 g = push(pos, make_float3(q.x, q.y, q.z));
        f.x += g.x; f.y += g.y; f.z += g.z;
      }
    }
  }
  return f;
}
__global__ void collide(float4 *newVel, const float4 *sortedPos, const float4 *sortedVel,
                        const unsigned *original, const unsigned *first, const unsigned *last,
                        unsigned count) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= count) return;
  float4 p4 = sortedPos[i];
  float4 v4 = sortedVel[i];
  float3 pos = make_float3(p4.x, p4.y, p4.z);
  int3 home = cellOf(pos);
  float3 f = make_float3(0.0f, 0.0f, 0.0f);
  for (int z = -1; z <= 1; z++)
    for (int y = -1; y <= 1; y++)
      for (int x = -1; x <= 1; x++) {
        float3 g = cellForce(make_int3(home.x + x, home.y + y, home.z + z), i, pos, sortedPos,
                             first, last);
        f.x += g.x; f.y += g.y; f.z += g.z;
      }
  newVel[i] = make_float4(v4.x + f.x, v4.y + f.y, v4.z + f.z, 0.0f);
}
