//--local_size=16 --num_groups=1
// A wrong contract on a vector return value.
int2 bump(int2 v) {
  __ensures(__return_val_int2().x == v.x + 1);
  __ensures(__return_val_int2().y == v.y + 1);
  int2 r;
  r.x = v.x + 1;
  r.y = v.y;
  return r;
}
__kernel void go(__global int *out) {
  int2 w = bump((int2)(1, 2));
  out[get_global_id(0)] = w.x + w.y;
}
