//xfail:NOT_ALL_VERIFIED
//--blockDim=64 --gridDim=1
// autosync: races=11-13,12-13
// 21_ptr_ok_pingpong_global.cu without the barrier: a thread reads its neighbours'
// elements of x (lines R1) while they may still be writing them as y (line R1) in the
// step before.  Missed if the swapped parameters keep their first binding.

__global__ void jacobi(float *x, float *y) {
  int t = threadIdx.x;
  for (int it = 0; it < 3; ++it) {
    float left = t > 0 ? x[t - 1] : 0.0f;  // R1
    float right = t < 63 ? x[t + 1] : 0.0f;  // R1
    y[t] = 0.5f * (left + right);  // R1
    float *swap = x;
    x = y;
    y = swap;
  }
}
