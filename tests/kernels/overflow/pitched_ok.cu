//pass
//--blockDim=[16,16] --gridDim=[4,4]
// Our own kernel: a pitched 2-D copy, row * pitch + col in int with pitch >= width > col.
// Distinct elements for distinct (row, col) once row * pitch cannot overflow.
__global__ void copy2d(float *out, const float *in, int pitch, int width, int height) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (col < width && row < height && width <= pitch)
    out[row * pitch + col] = in[row * pitch + col] + col;
}
