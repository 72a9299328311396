//xfail:NOT_ALL_VERIFIED
//--blockDim=128 --gridDim=16
// autosync: races=23-29
// merge_tiled_ok.cu without the barrier at the end of a tile: the next tile's key (line 23)
// overwrites tb[t] while a slower thread may still be searching this tile (line 29).
// A tiled merge in the merge-path style: each block merges its slice of two sorted key
// arrays tile by tile.  Per tile, every thread stages one key of each input in shared
// memory, and after the barrier finds by binary search where its output diagonal crosses
// the two tiles (reads of any staged key), then writes its own output element.  The staged
// tiles are rewritten by the next tile, so a second barrier orders that after this tile's
// searches.  The tile loop's trip count is a parameter: the loop is abstracted, and its
// output index advances by a whole tile per iteration.  Race-free.

#define TILE 128

__global__ void merge_tiles(const int *a, const int *b, int *out, int tiles) {
  __shared__ int ta[TILE];
  __shared__ int tb[TILE];
  int t = threadIdx.x;
  for (int k = 0; k < tiles; ++k) {
    int base = ((int)blockIdx.x * tiles + k) * TILE;
    ta[t] = a[base + t];
    tb[t] = b[base + t];
    __syncthreads();
    int diag = t;  // output position t of this tile's first TILE merged keys
    int lo = 0, hi = diag;
    while (lo < hi) {  // the number of keys taken from ta on this diagonal
      int mid = (lo + hi) / 2;
      if (ta[mid] <= tb[diag - 1 - mid]) lo = mid + 1; else hi = mid;
    }
    int from_a = lo, from_b = diag - lo;
    int key = (from_b >= TILE || (from_a < TILE && ta[from_a] <= tb[from_b])) ? ta[from_a] : tb[from_b];
    out[2 * base + t] = key;
  }
}
