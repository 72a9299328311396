//xfail:NOT_ALL_VERIFIED
//--local_size=64 --num_groups=1
// autosync: min_barriers=2
__kernel void loop_d2_both_kernel() {
  __local int A[4][65];
  __local int B[5][64];
  int tid = get_local_id(0);
  int x, y;
  for (int i = 0; i < 4; i++) {
    y = B[i][(tid+1)%64];
    for (int j = 0; j < 4; j++) {
      x = A[j][tid+1];
      x = x+y;
      A[j][tid] = x;
    }
    y = y+i;
    B[i+1][tid] = y;
  }
}
