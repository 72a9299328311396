//xfail:NOT_ALL_VERIFIED
//--blockDim=64 --gridDim=1
// autosync: races=8-8
// vectors_ok.cu where each thread's update reads its neighbour's position: the element-wise
// += writes pos[me] while thread me - 1 reads it.

__global__ void drift(float3 *pos, float dt) {
  pos[threadIdx.x] += pos[threadIdx.x + 1] * dt;
}
