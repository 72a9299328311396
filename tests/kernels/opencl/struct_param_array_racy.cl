//xfail:data-race
//--local_size=64 --num_groups=4
// struct_param_array.cl writing where the array's first weight says: every work-item the
// same element, with different values.
struct weights {
  int w[4];
};

__kernel void weigh(__global int *out, struct weights k) {
  size_t i = get_global_id(0);
  out[k.w[0]] = (int)i;
}
