//xfail:NOT_ALL_VERIFIED
//--blockDim=256 --gridDim=16
// autosync: races=30-34,31-35
// 20_operators_ok.cu without the first barrier: thread t's reads of its partner's
// complex value s[t ^ 1] (line R1) and position pos[t ^ 1] under the user operator+
// (line R2) race with the partner's stores s[t] = data[g] (line R1) and pos[t] = ... (line R2).

struct Cplx {
  float re, im;
  __device__ Cplx operator+(const Cplx &o) const { return {re + o.re, im + o.im}; }
  __device__ Cplx operator*(const Cplx &o) const {
    return {re * o.re - im * o.im, re * o.im + im * o.re};
  }
};

__device__ Cplx operator-(const Cplx &a, const Cplx &b) { return {a.re - b.re, a.im - b.im}; }

struct Vec2 {
  float x, y;
};

__device__ Vec2 operator+(Vec2 a, Vec2 b) { return Vec2{a.x + b.x, a.y + b.y}; }
__device__ Vec2 operator*(float k, Vec2 a) { return Vec2{k * a.x, k * a.y}; }

__global__ void butterfly(Cplx *data, Vec2 *mid, const Cplx *twiddle) {
  __shared__ Cplx s[256];
  __shared__ Vec2 pos[256];
  int t = threadIdx.x;
  int g = blockIdx.x * 256 + t;
  s[t] = data[g];  // R1
  pos[t] = Vec2{float(t), float(blockIdx.x)};  // R2
  Cplx w = twiddle[t >> 1];
  Cplx mine = s[t];
  Cplx other = s[t ^ 1];  // R1
  Vec2 centre = 0.5f * (pos[t] + pos[t ^ 1]);  // R2
  __syncthreads();
  s[t] = (t & 1) ? other - mine * w : mine + other * w;
  mid[g] = centre;
  data[g] = s[t];
}
