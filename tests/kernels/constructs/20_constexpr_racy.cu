//xfail:NOT_ALL_VERIFIED
//--blockDim=256 --gridDim=16
// autosync: races=21-22
// 20_constexpr_ok.cu without the first barrier of the 'if constexpr (Exclusive)' branch:
// thread t's read of s[t - 1] (line R1) races with thread t - 1's store s[t] = prev
// (line R1).  Missed if the taken constexpr branch is dropped or taken for the else.

constexpr int ilog2(int n) { return n <= 1 ? 0 : 1 + ilog2(n / 2); }

constexpr int kBlock = 256;
constexpr int kSteps = ilog2(kBlock);
constexpr bool kExclusive = true;

struct ScanConfig {
  static constexpr int kFirstOffset = 1;
};

template <bool Exclusive>
__device__ void finish(int *s, int t) {
  if constexpr (Exclusive) {
    int prev = t == 0 ? 0 : s[t - 1];  // R1
    s[t] = prev;  // R1
    __syncthreads();
  } else {
    s[t] += 0;
  }
}

__global__ void scan_counts(const int *in, int *out) {
  __shared__ int s[kBlock];
  int t = threadIdx.x;
  int g = blockIdx.x * kBlock + t;
  s[t] = in[g];
  __syncthreads();
  for (int d = 0; d < kSteps; ++d) {
    int off = ScanConfig::kFirstOffset << d;
    int add = t >= off ? s[t - off] : 0;
    __syncthreads();
    s[t] += add;
    __syncthreads();
  }
  finish<kExclusive>(s, t);
  out[g] = s[t];
}
