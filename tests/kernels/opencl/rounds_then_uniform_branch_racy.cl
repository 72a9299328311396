//xfail:data-race
//--local_size=16 --num_groups=2
// The racy twin of rounds_then_uniform_branch.cl: the last round's writes are not followed
// by a barrier, so the read of cells[0] after the loop races with work-item 0's write.
__kernel void settle(__local int *cells, __global int *out, int rounds) {
  size_t l = get_local_id(0);
  for (int r = 0; r < rounds; r++) {
    barrier(CLK_LOCAL_MEM_FENCE);
    cells[l] = r + (int)l;
  }
  if (cells[0] == 7) {
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = 1;
  }
}
