//pass
//--local_size=16 --num_groups=2
// Program-scope __constant tables are fixed by their initialisers (the elements left out
// are 0): only work-item owner[0] of each group writes the group's slot, and no entry of
// quiet is set.
__constant int owner[4] = { 3 };
__constant int quiet[16] = { };

__kernel void elect(__global int *slots) {
  int l = get_local_id(0);
  if (l == owner[0])
    slots[get_group_id(0)] = l;
  if (quiet[l] != 0)
    slots[0] = l;
}
