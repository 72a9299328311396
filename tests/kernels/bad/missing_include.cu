//pass
//--blockDim=64 --gridDim=1
// BAD INPUT: includes a local header that does not exist.

#include "no_such_header_autosync.h"

__global__ void uses_missing(int *data) {
  data[threadIdx.x] = NO_SUCH_CONSTANT;
}
