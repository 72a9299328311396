//xfail:NOT_ALL_VERIFIED
//--local_size=64 --num_groups=1
// autosync: min_barriers=2
__kernel void loop_both_kernel(int n) {
  __local int A[65];
  int tid = get_local_id(0);
  int x;
  for (int i = 0; i < n; i++) {
    x = A[tid+1];
    x = x+i;
    A[tid] += x;
  }
}
