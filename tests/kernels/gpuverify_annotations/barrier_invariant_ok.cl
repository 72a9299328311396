//--local_size=64 --num_groups=1
// Barrier invariants, checked at their barrier: one of each work-item, one of two.
__kernel void stage(__global int *out) {
  int step = 5;
  __barrier_invariant_1(step == 5, get_local_id(0));
  __barrier_invariant_binary_1(get_local_id(0) != __other_int(get_local_id(0)),
                               get_local_id(0), __other_int(get_local_id(0)));
  barrier(CLK_LOCAL_MEM_FENCE);
  out[get_global_id(0)] = step;
}
