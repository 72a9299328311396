//xfail:data-race
//--local_size=64 --num_groups=16
// The reverse without its barrier: a read-write race on the local tile.
__kernel void reverse(__global float *out, __global const float *in) {
  __local float tile[64];
  size_t l = get_local_id(0);
  size_t g = get_global_id(0);
  tile[l] = in[g];
  out[g] = tile[get_local_size(0) - 1 - l];
}
