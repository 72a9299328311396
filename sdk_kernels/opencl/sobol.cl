//pass
//--local_size=[64,1] --num_groups=[128,10]
// autosync: min_barriers=1 original_barriers=1
// Sobol quasi-random sequence generator, as its CUDA twin (../sobol.cu), in OpenCL C:
// group row y produces dimension y.  The 32 direction numbers of the dimension are staged
// in local memory once, then each work-item produces a strided subset of the points with
// the Gray-code recurrence.  OpenCL C has no ffs(): FFS(x) is its value (the 1-based
// index of the lowest set bit, 0 for 0) from clz of the lowest set bit alone.

#define k_2powneg32 2.3283064E-10F
#define n_directions 32
#define FFS(x) (32 - clz((x) & (0u - (x))))

__kernel void sobolGPU_kernel(unsigned n_vectors, unsigned n_dimensions, __global unsigned *d_directions,
                              __global float *d_output) {
  __requires(n_vectors == 100000);
  __requires(n_dimensions == 10);
  __local unsigned int v[n_directions];

  // move the pointers to this group row's dimension
  d_directions = d_directions + n_directions * get_group_id(1);
  d_output = d_output + n_vectors * get_group_id(1);

  // copy the direction numbers of this dimension into local memory
  if (get_local_id(0) < n_directions) {
    v[get_local_id(0)] = d_directions[get_local_id(0)];
  }
  barrier(CLK_LOCAL_MEM_FENCE);

  // first point handled by this work-item and the stride between its points
  int i0 = get_local_id(0) + get_group_id(0) * get_local_size(0);
  int stride = get_num_groups(0) * get_local_size(0);

  // the Gray code of i0 gives the first value: g = i0 xor (i0 / 2)
  unsigned int g = i0 ^ (i0 >> 1);
  unsigned int X = 0;
  unsigned int mask;

  // X = xor of v[k] over the set bits k of g
  for (unsigned int k = 0; k < FFS((unsigned)stride) - 1; k++) {
    mask = -(g & 1);
    X ^= mask & v[k];
    g = g >> 1;
  }

  if (i0 < n_vectors) {
    d_output[i0] = (float)X * k_2powneg32;
  }

  // now jump by `stride` points at a time: going from point i to i + stride flips the
  // bits of the Gray code that changed, which we fold into a running value v_log2stridem1
  // plus the single direction number of the lowest set bit of i + stride
  unsigned int v_log2stridem1 = v[FFS((unsigned)stride) - 2];
  unsigned int v_stridemask = stride - 1;

  for (unsigned int i = i0 + stride; i < n_vectors; i += stride) {
    // x_i = x_{i-stride} ^ v[b] ^ v[log2(stride) - 1], where b is the lowest zero bit of
    // the quotient (i - stride) / stride, found with FFS on the complement
    X ^= v_log2stridem1 ^ v[FFS(~((i - stride) | v_stridemask)) - 1];
    d_output[i] = (float)X * k_2powneg32;
  }
}
