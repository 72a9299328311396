//pass
//--blockDim=64 --gridDim=4
// An anonymous `typedef struct { ... } T` used as a pointer parameter: thread t writes
// both fields of element t only.  Race-free.

typedef struct {
  float weight;
  int count;
} Bin;

__global__ void fill_bins(Bin *bins) {
  unsigned g = blockIdx.x * 64 + threadIdx.x;
  bins[g].weight = 0.5f;
  bins[g].count = 1;
}
