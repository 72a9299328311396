//pass
//--local_size=64 --num_groups=4
// Each work-item records in its own slot of a table a pointer to its own element and its
// index: the pointer is stored as its bytes.
struct slot {
  __global float *at;
  int index;
};

__kernel void record(__global float *data, __global struct slot *table) {
  size_t i = get_global_id(0);
  table[i].index = (int)i;
  table[i].at = data + i;
}
