//xfail:NOT_ALL_VERIFIED
//--local_size=* --num_groups=4
// Every work-item of a group adds to the group's one cell.
__kernel void own(__global int *cells) {
  cells[get_group_id(0)] += 1;
}
