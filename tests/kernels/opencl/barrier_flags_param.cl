//pass
//--local_size=64 --num_groups=2
// The race-free twin of barrier_flags_param_racy.cl: a barrier whose flags come from the
// host orders nothing for certain, so the exchange is ordered by a barrier with the local
// flag; each work-item's own element needs no ordering.
__kernel void shift_left(__global const int *in, __global int *out, int fence) {
  __local int row[65];
  size_t l = get_local_id(0);
  row[l] = in[get_global_id(0)];
  barrier(fence);
  row[l] += 1;
  barrier(CLK_LOCAL_MEM_FENCE);
  out[get_global_id(0)] = row[l + 1];
}
