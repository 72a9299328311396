//pass
//--local_size=[16,4] --num_groups=[24,768]
// autosync: min_barriers=1 original_barriers=1
// Row pass of a separable convolution, as its CUDA twin (../convolutionRowsKernel.cu), in
// OpenCL C: each group stages RESULT_STEPS tiles of a row strip plus a halo tile on either
// side in local memory, then filters along x.  The filter is a __constant argument (the
// CUDA twin's __constant__ array).

#define KERNEL_RADIUS 8
#define KERNEL_LENGTH (2 * KERNEL_RADIUS + 1)
#define ROWS_BLOCKDIM_X 16
#define ROWS_BLOCKDIM_Y 4
#define ROWS_RESULT_STEPS 8
#define ROWS_HALO_STEPS 1

__kernel void convolutionRowsKernel(__global float *d_Dst, __global float *d_Src, __constant float *c_Kernel,
                                    int imageW, int imageH, int pitch) {
  __requires(imageW == 3072);
  __requires(imageH == 3072);
  __requires(pitch == 3072);
  __local float s_Data[ROWS_BLOCKDIM_Y][(ROWS_RESULT_STEPS + 2 * ROWS_HALO_STEPS) * ROWS_BLOCKDIM_X];

  // offset to the left halo edge
  const int baseX = (get_group_id(0) * ROWS_RESULT_STEPS - ROWS_HALO_STEPS) * ROWS_BLOCKDIM_X + get_local_id(0);
  const int baseY = get_group_id(1) * ROWS_BLOCKDIM_Y + get_local_id(1);

  d_Src += baseY * pitch + baseX;
  d_Dst += baseY * pitch + baseX;

  // main data
#pragma unroll
  for (int i = ROWS_HALO_STEPS; i < ROWS_HALO_STEPS + ROWS_RESULT_STEPS; i++) {
    s_Data[get_local_id(1)][get_local_id(0) + i * ROWS_BLOCKDIM_X] = d_Src[i * ROWS_BLOCKDIM_X];
  }

  // left halo (zero outside the image)
#pragma unroll
  for (int i = 0; i < ROWS_HALO_STEPS; i++) {
    s_Data[get_local_id(1)][get_local_id(0) + i * ROWS_BLOCKDIM_X] = (baseX >= -i * ROWS_BLOCKDIM_X) ? d_Src[i * ROWS_BLOCKDIM_X] : 0;
  }

  // right halo (zero outside the image)
#pragma unroll
  for (int i = ROWS_HALO_STEPS + ROWS_RESULT_STEPS; i < ROWS_HALO_STEPS + ROWS_RESULT_STEPS + ROWS_HALO_STEPS; i++) {
    s_Data[get_local_id(1)][get_local_id(0) + i * ROWS_BLOCKDIM_X] = (imageW - baseX > i * ROWS_BLOCKDIM_X) ? d_Src[i * ROWS_BLOCKDIM_X] : 0;
  }
  barrier(CLK_LOCAL_MEM_FENCE);

  // compute and store results
#pragma unroll
  for (int i = ROWS_HALO_STEPS; i < ROWS_HALO_STEPS + ROWS_RESULT_STEPS; i++) {
    float sum = 0;
#pragma unroll
    for (int j = -KERNEL_RADIUS; j <= KERNEL_RADIUS; j++) {
      sum += c_Kernel[KERNEL_RADIUS - j] * s_Data[get_local_id(1)][get_local_id(0) + i * ROWS_BLOCKDIM_X + j];
    }
    d_Dst[i * ROWS_BLOCKDIM_X] = sum;
  }
}
