//xfail:NOT_ALL_VERIFIED
//--blockDim=64 --gridDim=1
// autosync: expect=deadlock
// [WEFT] Listing 1: each warp blocks on the barrier the other warp only
// arrives at after its own sync -- a cyclic wait on named barriers 0 and 1.

__global__ void __launch_bounds__(64, 1) example_deadlock(void) {
  int warp_id = threadIdx.x / 32;
  if (warp_id == 0) {
    // bar.sync (barrier name), (participants);
    asm volatile("bar.sync 0, 64;");
    asm volatile("bar.arrive 1, 64;");
  } else {
    asm volatile("bar.sync 1, 64;");
    asm volatile("bar.arrive 0, 64;");
  }
}
