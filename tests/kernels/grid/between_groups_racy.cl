//xfail:NOT_ALL_VERIFIED
//--local_size=64 --num_groups=4
// only_between_racy.cu in OpenCL C: the race is between work-groups, which OpenCL C has no
// barrier for.
__kernel void pass_on(__global int *slots, __global int *out) {
  uint g = get_group_id(0);
  uint l = get_local_id(0);
  slots[g * 64u + l] = (int)(g + l);
  out[g * 64u + l] = slots[((g + 1u) % get_num_groups(0)) * 64u + l];
}
