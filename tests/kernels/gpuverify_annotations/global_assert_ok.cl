//--local_size=32 --num_groups=1
// A global assertion holds for every work-item, those that skip the branch too.
__kernel void split(__global int *out) {
  int lid = get_local_id(0);
  if (lid < 8) {
    __global_assert(__implies(lid < 8, __enabled()));
    out[lid] = 1;
  }
}
