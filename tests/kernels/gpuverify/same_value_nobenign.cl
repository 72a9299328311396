//xfail:NOT_ALL_VERIFIED
//--local_size=32 --num_groups=1 --no-benign-tolerance
// The same writes, with GPUVerify's option to report them.
__kernel void reset(__local int *flag) {
  flag[0] = 0;
}
