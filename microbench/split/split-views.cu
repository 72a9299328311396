//xfail:NOT_ALL_VERIFIED
//--blockDim=32 --gridDim=1
// autosync: min_barriers=2
// Two names for one buffer: `hi` starts where `lo` ends, so the statement that writes hi[t]
// from lo[t + 1] races with itself for t = 31 (lo[32] is hi[0], written by thread 0).
__global__ void neighbour_diff(int *data) {
    __shared__ int buf[64];
    int *lo = buf;
    int *hi = buf + 32;
    unsigned tid = threadIdx.x;
    lo[tid] = data[tid];
    hi[tid] = data[tid + 32];
    hi[tid] = lo[tid + 1] - lo[tid];
    data[tid] = hi[tid];
}
