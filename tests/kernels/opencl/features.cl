//pass
//--local_size=[16,4] --global_size=[64,16]
// OpenCL C constructs in one race-free kernel: vectors and swizzles, atomics of both
// spellings, a work-group copy and its wait, OpenCL 1.x's barrier and 2.0's work_group_barrier.
__kernel void features(__global float4 *v, __global int *counts, __global float *in,
                       __global float *out, __constant float *coef) {
  __local float tile[64];
  __local int hits;
  size_t lx = get_local_id(0), ly = get_local_id(1);
  size_t l = ly * get_local_size(0) + lx;
  size_t g = get_global_id(1) * get_global_size(0) + get_global_id(0);
  float4 a = v[g];
  float2 lo = a.lo;
  float4 b = (float4)(lo, a.zw) * coef[0];
  b.x = a.s3 + lo.y;
  v[g] = b;
  if (l == 0) hits = 0;
  barrier(CLK_LOCAL_MEM_FENCE);  // the wait below orders only the copy, not this write
  event_t e = async_work_group_copy(tile, in + get_group_id(0) * 64, 64, 0);
  wait_group_events(1, &e);
  atomic_add(&hits, 1);
  atom_inc(&counts[get_group_id(1)]);
  work_group_barrier(CLK_LOCAL_MEM_FENCE);
  out[g] = tile[63 - l] + (float)hits;
}
