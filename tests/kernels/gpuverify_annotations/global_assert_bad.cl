//--local_size=32 --num_groups=1
// A global assertion is checked for every work-item: those that skip the branch break it.
__kernel void split(__global int *out) {
  int lid = get_local_id(0);
  if (lid < 8) {
    __global_assert(__enabled());
    out[lid] = 1;
  }
}
