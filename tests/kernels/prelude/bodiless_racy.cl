//xfail:data-race
//--local_size=32 --num_groups=1
// autosync: races=11-12
// Work-item 0 writes flags[0] while every work-item reads it for a bodiless call.

void record(int v);

__kernel void announce(__local int *flags, __global int *out) {
  size_t me = get_local_id(0);
  if (me == 0)
    flags[0] = 1;
  record(flags[0]);
  out[me] = (int)me;
}
