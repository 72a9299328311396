//--local_size=32 --num_groups=2
// A sum GPUVerify is told does not overflow: the sum is at least each operand.
__kernel void total(unsigned a, unsigned b, __global unsigned *out) {
  unsigned s = __add_noovfl_unsigned_int(a, b);
  __assert(s >= a && s >= b);
  out[get_global_id(0)] = s;
}
