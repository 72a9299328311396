//xfail:NOT_ALL_VERIFIED
//--blockDim=256 --gridDim=8
// autosync: races=19-24
// 10_goto_ok_retry.cu without the barrier after the insert loop: thread t copies
// table[t] out (plain read, line R1) while another thread may still claim that slot with
// atomicCAS (line R1).  An atomic and a non-atomic access to one cell race.

#define EMPTY 0xffffffffu

__global__ void build_hash(const unsigned *keys, unsigned *out) {
  __shared__ unsigned table[512];
  unsigned t = threadIdx.x;
  table[t] = EMPTY;
  table[t + 256] = EMPTY;
  __syncthreads();
  unsigned key = keys[blockIdx.x * 256 + t];
  unsigned slot = (key * 2654435761u) & 511u;
retry:
  unsigned prev = atomicCAS(&table[slot], EMPTY, key);  // R1
  if (prev != EMPTY && prev != key) {
    slot = (slot + 1) & 511u;
    goto retry;
  }
  out[blockIdx.x * 512 + t] = table[t];  // R1
  out[blockIdx.x * 512 + t + 256] = table[t + 256];
}
