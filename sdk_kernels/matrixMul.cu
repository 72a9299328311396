//pass
//--blockDim=[32,32] --gridDim=[20,10]
// autosync: min_barriers=2 original_barriers=2
// Matrix multiplication C = A * B with square shared-memory tiles: every block computes
// one BLOCK_SIZE x BLOCK_SIZE sub-matrix of C, walking along a row of tiles of A and a
// column of tiles of B.

#include "annotations.h"

// wA is A's width and wB is B's width (both multiples of BLOCK_SIZE)
template <int BLOCK_SIZE>
__global__ void matrixMulCUDA(float *C, float *A, float *B, int wA, int wB) {
  __requires(wA == 320);
  __requires(wB == 640);

  // block and thread indices
  int bx = blockIdx.x;
  int by = blockIdx.y;
  int tx = threadIdx.x;
  int ty = threadIdx.y;

  // first, last and step of the tiles of A handled by this block
  int aBegin = wA * BLOCK_SIZE * by;
  int aEnd = aBegin + wA - 1;
  int aStep = BLOCK_SIZE;

  // first tile and step of the tiles of B
  int bBegin = BLOCK_SIZE * bx;
  int bStep = BLOCK_SIZE * wB;

  // the element of the C tile computed by this thread
  float Csub = 0;

  // loop over all tiles of A and B needed for this C tile
  for (int a = aBegin, b = bBegin; a <= aEnd; a += aStep, b += bStep) {
    // tiles of A and B in shared memory
    __shared__ float As[BLOCK_SIZE][BLOCK_SIZE];
    __shared__ float Bs[BLOCK_SIZE][BLOCK_SIZE];

    // each thread loads one element of each tile
    As[ty][tx] = A[a + wA * ty + tx];
    Bs[ty][tx] = B[b + wB * ty + tx];
    __syncthreads();
    // (the tiles must be complete before anyone multiplies them)

    // multiply the two tiles
#pragma unroll
    for (int k = 0; k < BLOCK_SIZE; ++k) {
      Csub += As[ty][k] * Bs[k][tx];
    }
    __syncthreads();
    // (everyone must be done with the tiles before the next iteration overwrites them)
  }

  // write the C tile; each thread writes one element
  int c = wB * BLOCK_SIZE * by + BLOCK_SIZE * bx;
  C[c + wB * ty + tx] = Csub;
}

template __global__ void matrixMulCUDA<32>(float *C, float *A, float *B, int wA, int wB);
