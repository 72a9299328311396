//xfail:NOT_ALL_VERIFIED
//--blockDim=64 --gridDim=1
// autosync: min_barriers=2
// Hillis-Steele inclusive scan written as one compound assignment per step: within a step,
// thread t reads s[t - off] while thread t - off adds into it.  It needs the statement split
// and two barriers per step (one between the read and the write, one between steps).
__global__ void scan_inclusive(float *data) {
    __shared__ float s[64];
    unsigned tid = threadIdx.x;
    s[tid] = data[tid];
    for (unsigned off = 1; off < 64; off *= 2) {
        s[tid] += (tid >= off) ? s[tid - off] : 0.0f;
    }
    data[tid] = s[tid];
}
