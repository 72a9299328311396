//xfail:NOT_ALL_VERIFIED
//--local_size=64 --num_groups=1
// autosync: min_barriers=1
__kernel void if_kernel() {
  __local int A[66];
  int tid = get_local_id(0);
  int x;
  x = 0;
  if (tid%2==0) {
    x = A[tid+2];
  }
  if (tid%6==0) {
    A[tid] += x;
  }
}
