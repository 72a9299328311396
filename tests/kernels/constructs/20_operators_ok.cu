//pass
//--blockDim=256 --gridDim=16
// One radix-2 butterfly stage over user-defined types with overloaded operators: a small
// complex type with operator+ / operator* (members and a free operator-), and a 2-vector
// type whose operator+ and operator* are user-defined (not helper_math's).  Thread t
// stores its element in s[t] and its position in pos[t]; the barrier orders the stores
// before thread t reads its partner s[t ^ 1] and pos[t ^ 1].  The second barrier orders
// those reads before s[t] is overwritten.  Race-free.

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
  s[t] = data[g];
  pos[t] = Vec2{float(t), float(blockIdx.x)};
  __syncthreads();
  Cplx w = twiddle[t >> 1];
  Cplx mine = s[t];
  Cplx other = s[t ^ 1];
  Vec2 centre = 0.5f * (pos[t] + pos[t ^ 1]);
  __syncthreads();
  s[t] = (t & 1) ? other - mine * w : mine + other * w;
  mid[g] = centre;
  data[g] = s[t];
}
