//xfail:NOT_ALL_VERIFIED
//--blockDim=64 --gridDim=1
// autosync: min_barriers=2
// One statement races with itself: thread t reads s[t + 1] while thread t + 1 writes it.
// `fix` splits it into a read into a fresh local and the write, with a barrier in between.
__global__ void shift_left(int *data) {
    __shared__ int s[65];
    unsigned tid = threadIdx.x;
    s[tid] = data[tid];
    if (tid == 0)
        s[64] = 0;
    s[tid] = s[tid + 1] + 1;
    data[tid] = s[tid];
}
