//xfail:NOT_ALL_VERIFIED
//--blockDim=128 --gridDim=4
// autosync: min_barriers=2
// Warp-specialised gather (our own): warps 0-1 stage two tables in shared memory, warps 2-3
// combine them.  Two races (keys, vals) run between the arms; one bar.arrive/bar.sync pair
// orders both: the arrive after the producer's last write, the sync before the first read.

__global__ void ws_gather(const int *keys_in, const float *vals_in, float *out) {
  __shared__ int keys[64];
  __shared__ float vals[64];
  int tid = threadIdx.x;
  if (tid < 64) {
    int g = blockIdx.x * 64 + tid;
    keys[tid] = keys_in[g] & 63;
    float v = vals_in[g];
    vals[tid] = v * v;
  } else {
    int i = tid - 64;
    float acc = 0.5f;
    int k = keys[63 - i];
    acc += (float)k;
    acc *= vals[(i + 1) % 64];
    out[blockIdx.x * 64 + i] = acc;
  }
}
