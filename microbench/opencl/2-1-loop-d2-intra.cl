//xfail:NOT_ALL_VERIFIED
//--local_size=32 --num_groups=1
// autosync: min_barriers=1
__kernel void loop_d2_intra_kernel() {
  __local int A[16][33];
  __local int B[16][33];
  int tid = get_local_id(0);
  int x, y;
  for (int i = 0; i < 4; i++) {
    for (int j = 0; j < 4; j++) {
      x = A[i*4+j][tid+1];
      y = B[i*4+j][tid+1];
      A[i*4+j][tid] = x+y;
      B[i*4+j][tid] = x-y;
    }
  }
}
