//pass
//--local_size=* --num_groups=4
// '*': the work-group size is unconstrained (any size), as when no launch is given.
__kernel void own(__global int *cells) {
  cells[get_global_id(0)] += 1;
}
