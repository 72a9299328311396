//xfail:NOT_ALL_VERIFIED
//--blockDim=64 --gridDim=4
// autosync: races=16-16
// 04_structs_ok_anon.cu with the count field of element g / 2: threads 2k and 2k + 1
// write the same field of one element (line R1 with itself), with different values (two
// writes of one value would be a benign pair, no race).

typedef struct {
  float weight;
  int count;
} Bin;

__global__ void fill_bins(Bin *bins) {
  unsigned g = blockIdx.x * 64 + threadIdx.x;
  bins[g].weight = 0.5f;
  bins[g / 2].count = g;  // R1
}
