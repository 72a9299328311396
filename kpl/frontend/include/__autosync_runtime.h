/* AutoSync: enough of the CUDA runtime API for host code in a kernel's file to parse.
 * Written for AutoSync.  Host code is parsed only to find launches; an error in it never
 * stops the kernels, so this covers the common calls, not the whole API. */
#pragma once
enum cudaMemcpyKind { cudaMemcpyHostToHost = 0, cudaMemcpyHostToDevice = 1,
                      cudaMemcpyDeviceToHost = 2, cudaMemcpyDeviceToDevice = 3,
                      cudaMemcpyDefault = 4 };
enum cudaFuncCache { cudaFuncCachePreferNone, cudaFuncCachePreferShared, cudaFuncCachePreferL1 };
enum cudaSharedMemConfig { cudaSharedMemBankSizeDefault, cudaSharedMemBankSizeFourByte,
                           cudaSharedMemBankSizeEightByte };
enum cudaFuncAttribute { cudaFuncAttributeMaxDynamicSharedMemorySize = 8,
                         cudaFuncAttributePreferredSharedMemoryCarveout = 9 };
struct cudaDeviceProp { char name[256]; size_t totalGlobalMem; size_t sharedMemPerBlock;
  int regsPerBlock; int warpSize; int maxThreadsPerBlock; int maxThreadsDim[3];
  int maxGridSize[3]; int major; int minor; int multiProcessorCount; int clockRate;
  size_t totalConstMem; int maxThreadsPerMultiProcessor; size_t sharedMemPerMultiprocessor; };
struct cudaChannelFormatDesc { int x, y, z, w; int f; };
typedef struct cudaArray *cudaArray_t;
struct cudaExtent { size_t width, height, depth; };
struct cudaPitchedPtr { void *ptr; size_t pitch, xsize, ysize; };
#define cudaStreamDefault 0
#define cudaStreamNonBlocking 1
#define cudaEventDefault 0
#define cudaHostAllocDefault 0
#define cudaMemAttachGlobal 1
extern "C" {
cudaError_t cudaMalloc(void **p, size_t n);
cudaError_t cudaMallocHost(void **p, size_t n);
cudaError_t cudaHostAlloc(void **p, size_t n, unsigned int flags);
cudaError_t cudaMallocManaged(void **p, size_t n, unsigned int flags = cudaMemAttachGlobal);
cudaError_t cudaMallocPitch(void **p, size_t *pitch, size_t width, size_t height);
cudaError_t cudaFree(void *p);
cudaError_t cudaFreeHost(void *p);
cudaError_t cudaMemcpy(void *dst, const void *src, size_t n, enum cudaMemcpyKind kind);
cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t n, enum cudaMemcpyKind kind,
                            cudaStream_t stream = 0);
cudaError_t cudaMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                         size_t height, enum cudaMemcpyKind kind);
cudaError_t cudaMemset(void *p, int value, size_t n);
cudaError_t cudaMemsetAsync(void *p, int value, size_t n, cudaStream_t stream = 0);
cudaError_t cudaDeviceSynchronize(void);
cudaError_t cudaDeviceReset(void);
cudaError_t cudaThreadSynchronize(void);
cudaError_t cudaGetLastError(void);
cudaError_t cudaPeekAtLastError(void);
const char *cudaGetErrorString(cudaError_t error);
const char *cudaGetErrorName(cudaError_t error);
cudaError_t cudaSetDevice(int device);
cudaError_t cudaGetDevice(int *device);
cudaError_t cudaGetDeviceCount(int *count);
cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *prop, int device);
cudaError_t cudaDeviceGetAttribute(int *value, int attr, int device);
cudaError_t cudaStreamCreate(cudaStream_t *stream);
cudaError_t cudaStreamCreateWithFlags(cudaStream_t *stream, unsigned int flags);
cudaError_t cudaStreamDestroy(cudaStream_t stream);
cudaError_t cudaStreamSynchronize(cudaStream_t stream);
cudaError_t cudaEventCreate(cudaEvent_t *event);
cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags);
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream = 0);
cudaError_t cudaEventSynchronize(cudaEvent_t event);
cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end);
cudaError_t cudaEventDestroy(cudaEvent_t event);
cudaError_t cudaFuncSetCacheConfig(const void *func, enum cudaFuncCache config);
cudaError_t cudaDeviceSetCacheConfig(enum cudaFuncCache config);
cudaError_t cudaDeviceSetSharedMemConfig(enum cudaSharedMemConfig config);
cudaError_t cudaFuncSetAttribute(const void *func, enum cudaFuncAttribute attr, int value);
cudaError_t cudaMemcpyToSymbol(const void *symbol, const void *src, size_t n, size_t offset = 0,
                               enum cudaMemcpyKind kind = cudaMemcpyHostToDevice);
cudaError_t cudaMemcpyFromSymbol(void *dst, const void *symbol, size_t n, size_t offset = 0,
                                 enum cudaMemcpyKind kind = cudaMemcpyDeviceToHost);
cudaError_t cudaGetSymbolAddress(void **p, const void *symbol);
cudaError_t cudaOccupancyMaxPotentialBlockSize(int *grid, int *block, const void *func,
                                               size_t shared = 0, int limit = 0);
cudaError_t cudaLaunchCooperativeKernel(const void *func, dim3 grid, dim3 block, void **args,
                                        size_t shared = 0, cudaStream_t stream = 0);
cudaError_t cudaLaunchKernel(const void *func, dim3 grid, dim3 block, void **args,
                             size_t shared = 0, cudaStream_t stream = 0);
/* the extensible launch: a configuration with launch attributes (cooperative among them) */
enum cudaLaunchAttributeID { cudaLaunchAttributeIgnore = 0, cudaLaunchAttributeCooperative = 2 };
union cudaLaunchAttributeValue { char pad[64]; int cooperative; };
typedef struct cudaLaunchAttribute_st { enum cudaLaunchAttributeID id;
  union cudaLaunchAttributeValue val; } cudaLaunchAttribute;
typedef struct cudaLaunchConfig_st { dim3 gridDim; dim3 blockDim; size_t dynamicSmemBytes;
  cudaStream_t stream; cudaLaunchAttribute *attrs; unsigned int numAttrs; } cudaLaunchConfig_t;
cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t *config, const void *func, void **args);
cudaError_t cudaBindTexture(size_t *offset, const void *tex, const void *p, const void *desc,
                            size_t size = ~(size_t)0);
cudaError_t cudaUnbindTexture(const void *tex);
struct cudaChannelFormatDesc cudaCreateChannelDesc(int x, int y, int z, int w, int f);
cudaError_t cudaProfilerStart(void);
cudaError_t cudaProfilerStop(void);
}
template <class T> inline cudaError_t cudaMalloc(T **p, size_t n) { return cudaMalloc((void **)p, n); }
template <typename... Params, typename... Args>
cudaError_t cudaLaunchKernelEx(const cudaLaunchConfig_t *config, void (*kernel)(Params...), Args &&...args);
template <class T> inline cudaError_t cudaMallocManaged(T **p, size_t n, unsigned int f = cudaMemAttachGlobal) {
  return cudaMallocManaged((void **)p, n, f); }
template <class T> inline cudaError_t cudaMallocHost(T **p, size_t n) { return cudaMallocHost((void **)p, n); }
template <class T> inline cudaError_t cudaMemcpyToSymbol(const T &symbol, const void *src, size_t n,
    size_t offset = 0, enum cudaMemcpyKind kind = cudaMemcpyHostToDevice) {
  return cudaMemcpyToSymbol((const void *)&symbol, src, n, offset, kind); }
template <class T> inline cudaError_t cudaMemcpyFromSymbol(void *dst, const T &symbol, size_t n,
    size_t offset = 0, enum cudaMemcpyKind kind = cudaMemcpyDeviceToHost) {
  return cudaMemcpyFromSymbol(dst, (const void *)&symbol, n, offset, kind); }
template <class T> inline cudaError_t cudaFuncSetAttribute(T *func, enum cudaFuncAttribute a, int v) {
  return cudaFuncSetAttribute((const void *)func, a, v); }
template <class T> inline cudaError_t cudaFuncSetCacheConfig(T *func, enum cudaFuncCache c) {
  return cudaFuncSetCacheConfig((const void *)func, c); }
