//xfail:data-race
//--local_size=32 --num_groups=1
// A sub-group barrier orders nothing we can rely on (a sub-group's width is the device's):
// the neighbour's local element is read in a race.
__kernel void shift(__global int *out) {
  __local int s[32];
  size_t l = get_local_id(0);
  s[l] = (int)l;
  sub_group_barrier(CLK_LOCAL_MEM_FENCE);
  out[l] = s[(l + 1) % 32];
}
