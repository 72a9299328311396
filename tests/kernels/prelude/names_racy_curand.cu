//xfail:NOT_ALL_VERIFIED
//--blockDim=128 --gridDim=1
// autosync: races=10-10
// names_ok.cu with one generator state for the whole block: every draw reads the state and
// writes it back advanced, so the threads race on it.

using namespace cooperative_groups;

__global__ void noisy(curandState *gens, float *out) {
  out[threadIdx.x] = curand_uniform(&gens[0]);
}
