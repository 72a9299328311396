//--local_size=64 --num_groups=1
// __global_ensures: a postcondition the function breaks.
void clear(__local int *a) {
  __global_ensures(!__read(a));
  a[get_local_id(0)] = a[get_local_id(0)] + 1;
}
__kernel void go(__local int *a) {
  clear(a);
}
