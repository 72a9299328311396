//--blockDim=64 --gridDim=1
// fuzz-expect-exit: 1
// The kernel's only barrier lives in a macro body, BEFORE the store it should follow: fixing
// the race needs a barrier after the macro's use (or the macro's barrier moved), never an
// edit inside the #define.
#define SYNC_THEN_STORE(arr, v) __syncthreads(); arr[threadIdx.x] = (v)
__global__ void mac(int *a) {
  __shared__ int s[64];
  SYNC_THEN_STORE(s, a[threadIdx.x]);
  a[threadIdx.x] = s[(threadIdx.x + 1) % 64];
}
