//--local_size=32 --num_groups=4
// A fresh array: distinct from every other (the default): every group writes the same elements: a race.
__kernel void fill(__global float *buf) {
  __requires_fresh_array(buf);
  buf[get_local_id(0)] = get_group_id(0);
}
