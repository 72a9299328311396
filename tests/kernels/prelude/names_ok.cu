//pass
//--blockDim=128 --gridDim=4
// Written for GPUVerify: curand's states and cooperative groups are used without any
// include, as GPUVerify's prelude declares them.  Each thread owns its generator state; the
// block's group barrier orders the exchange through shared memory.

using namespace cooperative_groups;

__global__ void noisy(curandState *gens, float *out) {
  __shared__ float drawn[128];
  thread_block team = this_thread_block();
  unsigned me = blockIdx.x * blockDim.x + threadIdx.x;
  curand_init(1234, me, 0, &gens[me]);
  drawn[team.thread_rank()] = curand_uniform(&gens[me]);
  synchronize(team);
  out[me] = drawn[127 - team.thread_rank()];
}
