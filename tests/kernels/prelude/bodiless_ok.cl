//pass
//--local_size=32 --num_groups=4
// The OpenCL C side of bodiless_ok.cu: bodiless functions are arbitrary values, no memory
// effect; each work-item writes its own cells only.

int choose(void);
void record(int v, __global int *where);

__kernel void tally(__global int *counts) {
  size_t me = get_global_id(0);
  int n = choose();
  for (int k = 0; k < 4 && choose(); k++)
    counts[me] += n;
  record(counts[me], &counts[me]);
}
