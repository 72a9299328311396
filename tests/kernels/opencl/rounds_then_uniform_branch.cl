//pass
//--local_size=16 --num_groups=2
// Rounds that each end with a barrier, a trip count known only at run time, then a branch
// on local memory every work-item reads alike: the barrier inside it is reached uniformly.
__kernel void settle(__local int *cells, __global int *out, int rounds) {
  size_t l = get_local_id(0);
  for (int r = 0; r < rounds; r++) {
    barrier(CLK_LOCAL_MEM_FENCE);
    cells[l] = r + (int)l;
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (cells[0] == 7) {
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = 1;
  }
}
