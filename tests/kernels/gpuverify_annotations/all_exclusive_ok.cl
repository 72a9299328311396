//--local_size=64 --num_groups=2
// GPUVerify's two-thread annotations: a fact of every work-item, one of at most one.
__kernel void mark(__global int *flags) {
  __assert(__all(get_local_id(0) < 64));
  __assert(__implies(get_group_id(0) == __other_int(get_group_id(0)),
                     __exclusive(get_local_id(0) == 3)));
  flags[get_global_id(0)] = 1;
}
