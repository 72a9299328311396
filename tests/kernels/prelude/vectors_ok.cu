//pass
//--blockDim=64 --gridDim=8
// Written for GPUVerify: arithmetic on float3 / int2 values without defining operators (its
// prelude makes them element-wise).  Each thread moves its own particle.

__global__ void drift(float3 *pos, float3 *vel, int2 *cell, float dt) {
  unsigned me = blockIdx.x * blockDim.x + threadIdx.x;
  float3 v = vel[me] * 0.5f + make_float3(0.0f, -9.8f, 0.0f) * dt;
  pos[me] += v * dt;
  vel[me] = -v;
  cell[me] = cell[me] + make_int2(1, 1);
}
