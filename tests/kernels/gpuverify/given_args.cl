//pass
//--local_size=16 --num_groups=1 --kernel-args=pick,1
// Only the value GPUVerify was given for 'mode' is checked: with mode 1 each work-item
// writes its own cell.
__kernel void pick(__local int *cells, int mode) {
  if (mode == 1) {
    cells[get_local_id(0)] = 1;
  } else {
    cells[0] = (int)get_local_id(0);
  }
}
