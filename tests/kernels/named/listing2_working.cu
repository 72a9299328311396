//pass
//--blockDim=64 --gridDim=1
// autosync: expect=ok
// [WEFT] Listing 2: warp 0 produces g for warp 1 over barrier 1, then the roles
// swap; barrier 0 separates the two phases.  Well-synchronized and race-free.

__global__ void working_example(const float *in, float *out) {
  __shared__ float g[32];
  int warp_id = threadIdx.x >> 5;
  int lane_id = threadIdx.x % 32;
  float w = in[lane_id], x = 0.0f, y = 0.0f, z = in[lane_id + 32];
  asm volatile("bar.sync 0, 64;");
  if (warp_id == 0) {
    g[lane_id] = w;
    asm volatile("bar.arrive 1, 64;");
  } else {
    asm volatile("bar.sync 1, 64;");
    x = g[lane_id];
  }
  asm volatile("bar.sync 0, 64;");
  if (warp_id == 0) {
    asm volatile("bar.sync 1, 64;");
    y = g[lane_id];
  } else {
    g[lane_id] = z;
    asm volatile("bar.arrive 1, 64;");
  }
  out[threadIdx.x] = x + y;
}
