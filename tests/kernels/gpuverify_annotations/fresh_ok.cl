//--local_size=32 --num_groups=4
// A fresh array: distinct from every other (the default): one element per work-item.
__kernel void fill(__global float *buf) {
  __requires_fresh_array(buf);
  buf[get_global_id(0)] = 1.0f;
}
