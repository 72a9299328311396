//pass
//--local_size=32 --num_groups=1
// Every work-item writes the same value to one cell: tolerated by default (benign).
__kernel void reset(__local int *flag) {
  flag[0] = 0;
}
