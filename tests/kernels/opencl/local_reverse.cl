//pass
//--local_size=64 --num_groups=16
// Each work-group reverses its slice through local memory: race-free with both barriers.
__kernel void reverse(__global float *out, __global const float *in) {
  __local float tile[64];
  size_t l = get_local_id(0);
  size_t g = get_global_id(0);
  tile[l] = in[g];
  barrier(CLK_LOCAL_MEM_FENCE);
  out[g] = tile[get_local_size(0) - 1 - l];
}
