//--blockDim=64 --gridDim=1
// fuzz-expect-exit: 2
// Two headers that include each other without guards.
#include "cycle_a.h"
__global__ void k(int *a) {
  a[threadIdx.x] = CYCLE_A + CYCLE_B;
}
