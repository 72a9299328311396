//xfail:data-race
//--local_size=64 --num_groups=2
// The fence flags come from the host: the barrier may fence no memory at all, so the
// neighbour's element read after it is not ordered after its write.
__kernel void shift_left(__global const int *in, __global int *out, int fence) {
  __local int row[65];
  size_t l = get_local_id(0);
  row[l] = in[get_global_id(0)];
  barrier(fence);
  out[get_global_id(0)] = row[l + 1];
}
