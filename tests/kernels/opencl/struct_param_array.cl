//pass
//--local_size=64 --num_groups=4
// A struct argument holding an array: each work-item indexes its own copy and may write
// it; the output is indexed by the global id.
struct weights {
  int w[4];
};

__kernel void weigh(__global int *out, struct weights k) {
  size_t i = get_global_id(0);
  k.w[i % 4] = k.w[i % 4] + 1;
  out[i] = k.w[get_local_id(0) % 4];
}
