//xfail:data-race
//--local_size=64 --num_groups=4
// store_pointer.cl with one slot per group: the work-items of a group store different
// pointers into the same slot.
struct slot {
  __global float *at;
  int index;
};

__kernel void record(__global float *data, __global struct slot *table) {
  size_t i = get_global_id(0);
  table[get_group_id(0)].at = data + i;
}
