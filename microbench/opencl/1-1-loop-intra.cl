//xfail:NOT_ALL_VERIFIED
//--local_size=64 --num_groups=1
// autosync: min_barriers=1
__kernel void loop_intra_kernel() {
  __local int A[4][65];
  int tid = get_local_id(0);
  int x;
  for (int i = 0; i < 4; i++) {
    x = A[i][tid+1];
    A[i][tid] = x+i;
  }
}
