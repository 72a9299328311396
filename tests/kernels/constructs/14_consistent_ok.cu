//pass
//--blockDim=[32,32] --gridDim=1
// Transitive closure of a 32-node graph, Warshall style, in shared memory.  In step k
// thread (y, x) sets d[y][x] when d[y][x] == 0 && d[y][k] != 0 && d[k][x] != 0.  The
// only cells other threads read in step k are d[y][k] and d[k][x]; thread (y, k) would
// write d[y][k] only if d[y][k] == 0 && d[y][k] != 0, which is impossible because its two
// reads of the same cell (no write in between) see the same value; likewise for (k, x).
// So no cell read by one thread is written by another in the same step.  Race-free.

__global__ void closure32(const int *adj, int *reach) {
  __shared__ int d[32][32];
  int x = threadIdx.x, y = threadIdx.y;
  d[y][x] = adj[y * 32 + x];
  __syncthreads();
  for (int k = 0; k < 32; ++k) {
    if (d[y][x] == 0 && d[y][k] != 0 && d[k][x] != 0)
      d[y][x] = 1;
    __syncthreads();
  }
  reach[y * 32 + x] = d[y][x];
}
