//--local_size=32 --num_groups=1
// A global precondition: every work-item's argument satisfies it, callers or not.
void store_big(__global int *out, int v) {
  __global_requires(v >= 10);
  out[get_local_id(0)] = v;
}
__kernel void go(__global int *out) {
  int v = 10;
  if (get_local_id(0) < 4) {
    v = 12;
    store_big(out, v);
  }
}
