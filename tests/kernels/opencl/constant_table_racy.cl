//xfail:data-race
//--local_size=16 --num_groups=2
// The racy twin of constant_table.cl: the table names two owners, which write the group's
// slot with different values.
__constant int owner[4] = { 3, 5 };
__constant int quiet[16] = { };

__kernel void elect(__global int *slots) {
  int l = get_local_id(0);
  if (l == owner[0] || l == owner[1])
    slots[get_group_id(0)] = l;
  if (quiet[l] != 0)
    slots[0] = l;
}
