//--local_size=32 --num_groups=2
// An uninterpreted function is not symmetric: its value depends on its arguments only, the same in every
// work-item.
DECLARE_UF_BINARY(mix, int, int, int);
__kernel void hash(int seed, int salt, __global int *out) {
  int h = mix(seed, salt);
  __assert(h == mix(salt, seed));
  __assert(__uniform_int(h));
  out[get_global_id(0)] = h;
}
