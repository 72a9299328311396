//xfail:data-race
//--local_size=16 --num_groups=2
// The racy twin of swizzle_store.cl: work-items of different groups store different values into one element.
__kernel void mix_lanes(__global int4 *out) {
  int4 v = (int4)(10, 20, 30, 40);
  int4 u = (int4)(1, 2, 3, 4);
  v.wy = u.zy;
  __assert(v.x == 10 & v.y == 2 & v.z == 30 & v.w == 3);
  v.xz += u.yx;
  __assert(v.x == 12 & v.z == 31);
  out[get_local_id(0)].yx = v.zw + (int)get_group_id(0);
}
