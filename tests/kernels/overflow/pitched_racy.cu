//xfail:NOT_ALL_VERIFIED
//--blockDim=[16,16] --gridDim=[4,4]
// Our own kernel, the racy twin of pitched_ok.cu: nothing ties the pitch to the width, so
// with pitch < width the end of one row is the start of the next.
__global__ void copy2d(float *out, const float *in, int pitch, int width, int height) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (col < width && row < height)
    out[row * pitch + col] = in[row * pitch + col] + col;
}
