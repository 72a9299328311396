//xfail:NOT_ALL_VERIFIED
//--local_size=64 --num_groups=1
// autosync: min_barriers=1
__kernel void main2_kernel() {
  __local int A[65];
  __local int B[65];
  int tid = get_local_id(0);
  int x, y;
  x = A[tid+1];
  y = B[tid+1];
  A[tid] = x+y;
  B[tid] = x-y;
}
