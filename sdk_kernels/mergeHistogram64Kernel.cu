//pass
//--blockDim=256 --gridDim=64
// autosync: min_barriers=1 original_barriers=1
// Merge the per-block partial 64-bin histograms: block b sums bin b over all partial
// histograms, first serially per thread, then by a shared-memory tree.

#include "annotations.h"

typedef unsigned int uint;
#define HISTOGRAM64_BIN_COUNT 64
#define MERGE_THREADBLOCK_SIZE 256

__global__ void mergeHistogram64Kernel(uint *d_Histogram, uint *d_PartialHistograms, uint histogramCount) {
  __requires(histogramCount == 1024);
  __shared__ uint data[MERGE_THREADBLOCK_SIZE];

  uint sum = 0;
  for (uint i = threadIdx.x; i < histogramCount; i += MERGE_THREADBLOCK_SIZE)
    sum += d_PartialHistograms[blockIdx.x + i * HISTOGRAM64_BIN_COUNT];
  data[threadIdx.x] = sum;

  for (uint stride = MERGE_THREADBLOCK_SIZE / 2; stride > 0; stride >>= 1) {
    __syncthreads();
    if (threadIdx.x < stride) data[threadIdx.x] += data[threadIdx.x + stride];
  }

  if (threadIdx.x == 0) d_Histogram[blockIdx.x] = data[0];
}
