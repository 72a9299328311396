//xfail:NOT_ALL_VERIFIED
//--blockDim=128 --gridDim=4
// autosync: races=13-14
// names_ok.cu without the group barrier: a thread reads a cell another thread writes.

using namespace cooperative_groups;

__global__ void noisy(curandState *gens, float *out) {
  __shared__ float drawn[128];
  thread_block team = this_thread_block();
  unsigned me = blockIdx.x * blockDim.x + threadIdx.x;
  curand_init(1234, me, 0, &gens[me]);
  drawn[team.thread_rank()] = curand_uniform(&gens[me]);
  out[me] = drawn[127 - team.thread_rank()];
}
