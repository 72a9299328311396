//pass
//--local_size=256 --num_groups=64
// autosync: min_barriers=1 original_barriers=1
// Merge the per-group partial 64-bin histograms, as the CUDA twin
// (../mergeHistogram64Kernel.cu), in OpenCL C: group b sums bin b over all partial
// histograms, first serially per work-item, then by a local-memory tree.

#define HISTOGRAM64_BIN_COUNT 64
#define MERGE_THREADBLOCK_SIZE 256

__kernel void mergeHistogram64Kernel(__global uint *d_Histogram, __global uint *d_PartialHistograms,
                                     uint histogramCount) {
  __requires(histogramCount == 1024);
  __local uint data[MERGE_THREADBLOCK_SIZE];

  uint sum = 0;
  for (uint i = get_local_id(0); i < histogramCount; i += MERGE_THREADBLOCK_SIZE)
    sum += d_PartialHistograms[get_group_id(0) + i * HISTOGRAM64_BIN_COUNT];
  data[get_local_id(0)] = sum;

  for (uint stride = MERGE_THREADBLOCK_SIZE / 2; stride > 0; stride >>= 1) {
    barrier(CLK_LOCAL_MEM_FENCE);
    if (get_local_id(0) < stride) data[get_local_id(0)] += data[get_local_id(0) + stride];
  }

  if (get_local_id(0) == 0) d_Histogram[get_group_id(0)] = data[0];
}
