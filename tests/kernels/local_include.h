/* Helper header for local_include.cu: constants and a small device helper. */
#ifndef LOCAL_INCLUDE_H
#define LOCAL_INCLUDE_H

#define LI_BLOCK 128

__device__ inline int li_mirror(int t) { return LI_BLOCK - 1 - t; }

#endif
