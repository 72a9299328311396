//xfail:NOT_ALL_VERIFIED
//--local_size=64 --num_groups=1
// autosync: min_barriers=1
__kernel void main_kernel() {
  __local int A[65];
  int tid = get_local_id(0);
  int x;
  x = A[tid+1];
  x = x+11;
  A[tid] += x;
}
