//xfail:data-race
//--local_size=128 --num_groups=8
// A global race the local barrier does not lie across (it comes after both accesses):
// widening that barrier cannot fix it, a new barrier between the accesses can.
__kernel void neighbour(__global int *data, __global int *out, __local int *t) {
  size_t g = get_global_id(0);
  size_t l = get_local_id(0);
  t[l] = (int)l;
  data[g] = (int)l;
  out[g] = data[g ^ 1];
  barrier(CLK_LOCAL_MEM_FENCE);
  out[g] += t[l ^ 1];
}
