//pass
//--local_size=[32,32] --num_groups=[20,10]
// autosync: min_barriers=2 original_barriers=2
// Matrix multiplication C = A * B with square local tiles, as its CUDA twin
// (../matrixMul.cu), in OpenCL C: every work-group computes one BLOCK_SIZE x BLOCK_SIZE
// sub-matrix of C.

#define BLOCK_SIZE 32

// wA is A's width and wB is B's width (both multiples of BLOCK_SIZE)
__kernel void matrixMul(__global float *C, __global float *A, __global float *B, int wA, int wB) {
  __requires(wA == 320);
  __requires(wB == 640);
  // group and work-item indices
  int bx = get_group_id(0);
  int by = get_group_id(1);
  int tx = get_local_id(0);
  int ty = get_local_id(1);
  // first, last and step of the tiles of A handled by this group
  int aBegin = wA * BLOCK_SIZE * by;
  int aEnd = aBegin + wA - 1;
  int aStep = BLOCK_SIZE;
  // first tile and step of the tiles of B
  int bBegin = BLOCK_SIZE * bx;
  int bStep = BLOCK_SIZE * wB;
  // the element of the C tile computed by this work-item
  float Csub = 0;
  // tiles of A and B in local memory
  __local float As[BLOCK_SIZE][BLOCK_SIZE];
  __local float Bs[BLOCK_SIZE][BLOCK_SIZE];
  // loop over all tiles of A and B needed for this C tile
  for (int a = aBegin, b = bBegin; a <= aEnd; a += aStep, b += bStep) {
    // each work-item loads one element of each tile
    As[ty][tx] = A[a + wA * ty + tx];
    Bs[ty][tx] = B[b + wB * ty + tx];
    barrier(CLK_LOCAL_MEM_FENCE);
    // multiply the two tiles
    for (int k = 0; k < BLOCK_SIZE; ++k) {
      Csub += As[ty][k] * Bs[k][tx];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  // write the C tile; each work-item writes one element
  int c = wB * BLOCK_SIZE * by + BLOCK_SIZE * bx;
  C[c + wB * ty + tx] = Csub;
}
