//pass
//--local_size=[16,16] --num_groups=[64,64]
// autosync: min_barriers=1 original_barriers=1
// Matrix transpose through a local tile padded by one column, as its CUDA twin
// (../d_transpose.cu), in OpenCL C.

#define BLOCK_DIM 16

__kernel void transpose(__global float *odata, __global float *idata, int width, int height) {
  __requires(width == 1024);
  __requires(height == 1024);
  __local float block[BLOCK_DIM][BLOCK_DIM + 1];

  // read the tile into local memory
  unsigned int xIndex = get_group_id(0) * BLOCK_DIM + get_local_id(0);
  unsigned int yIndex = get_group_id(1) * BLOCK_DIM + get_local_id(1);
  if ((xIndex < width) && (yIndex < height)) {
    unsigned int index_in = yIndex * width + xIndex;
    block[get_local_id(1)][get_local_id(0)] = idata[index_in];
  }
  barrier(CLK_LOCAL_MEM_FENCE);

  // write the transposed tile back
  xIndex = get_group_id(1) * BLOCK_DIM + get_local_id(0);
  yIndex = get_group_id(0) * BLOCK_DIM + get_local_id(1);
  if ((xIndex < height) && (yIndex < width)) {
    unsigned int index_out = yIndex * height + xIndex;
    odata[index_out] = block[get_local_id(0)][get_local_id(1)];
  }
}
