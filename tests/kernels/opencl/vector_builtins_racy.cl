//xfail:data-race
//--local_size=32 --num_groups=2
// The racy twin of vector_builtins.cl: the shuffled vector is stored in the neighbour's
// element, which that work-item reads.
__kernel void lanes(__global float4 *f, __global int4 *n, __global float8 *w, __global long *ticks) {
  size_t g = get_global_id(0);
  int4 a = (int4)(1, 7, -3, 9);
  int4 lo = min(a, 5);
  int4 hi = max(a, (int4)(2, 2, 2, 2));
  __assert(lo.x == 1 & lo.y == 5 & lo.z == -3 & lo.w == 5);
  __assert(hi.x == 2 & hi.y == 7 & hi.z == 2 & hi.w == 9);
  __assert(sizeof(float8) == 32 & sizeof(int16) == 64);
  float3 c = fmin((float3)(1.0f, 2.0f, 3.0f), 2.5f);
  f[g] = pown(f[g], n[g]) + half_powr(2.0f, c.x) + native_exp2(c.y);
  n[g + 1] = shuffle(n[g], (uint4)(3, 2, 1, 0));
  float cz;
  w[g] = w[g] * sincos(c.z, &cz) + cz;
  atom_add(ticks, 1L);
}
