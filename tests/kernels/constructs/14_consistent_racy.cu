//xfail:NOT_ALL_VERIFIED
//--blockDim=[32,32] --gridDim=1
// autosync: races=16-17
// All-pairs shortest paths (Floyd-Warshall) with the same access pattern as
// 14_consistent_ok.cu, but the guard no longer rules out writes to the shared column:
// thread (y, k) writes d[y][k] when d[y][k] + d[k][k] < d[y][k], i.e. whenever d[k][k]
// is negative, while thread (y, x) reads d[y][k] in the same step (line R1 read, line R1
// write).  (With non-negative weights the write never happens, but nothing here says so.)

__global__ void apsp32(const int *w, int *dist) {
  __shared__ int d[32][32];
  int x = threadIdx.x, y = threadIdx.y;
  d[y][x] = w[y * 32 + x];
  __syncthreads();
  for (int k = 0; k < 32; ++k) {
    if (d[y][k] + d[k][x] < d[y][x])  // R1
      d[y][x] = d[y][k] + d[k][x];  // R1
    __syncthreads();
  }
  dist[y * 32 + x] = d[y][x];
}
