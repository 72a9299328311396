//xfail:NOT_ALL_VERIFIED
//--local_size=16 --num_groups=1 --kernel-args=pick,2
// Only the value GPUVerify was given for 'mode' is checked: mode 2 takes the racy branch.
__kernel void pick(__local int *cells, int mode) {
  if (mode == 1) {
    cells[get_local_id(0)] = 1;
  } else {
    cells[0] = (int)get_local_id(0);
  }
}
