//--local_size=32 --num_groups=2
// The same sum, plain: it may wrap, so the assertion fails.
__kernel void total(unsigned a, unsigned b, __global unsigned *out) {
  unsigned s = a + b;
  __assert(s >= a && s >= b);
  out[get_global_id(0)] = s;
}
