//pass
//--blockDim=256 --gridDim=16
// constexpr variables and functions and 'if constexpr' over a template parameter: the
// block size and the number of scan steps (a constexpr log2) are compile-time constants,
// and finish<kExclusive>() shifts the inclusive scan by one slot only in its
// 'if constexpr (Exclusive)' branch.  In that branch the first barrier orders every read
// of s[t - 1] before any store s[t] = prev, the second orders the stores before the
// caller's read.  Each Hillis-Steele step reads, synchronises, writes, synchronises.
// Race-free.

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
    int prev = t == 0 ? 0 : s[t - 1];
    __syncthreads();
    s[t] = prev;
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
