//pass
//--blockDim=256 --gridDim=8
// Open-addressing hash insert into a shared table with a retry loop written with goto
// (linear probing, atomicCAS claims a slot).  Every write to `table` during the insert
// phase is atomic; the barrier separates it from the plain reads that copy the table
// out, one slot per thread.  Race-free.

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
  unsigned prev = atomicCAS(&table[slot], EMPTY, key);
  if (prev != EMPTY && prev != key) {
    slot = (slot + 1) & 511u;
    goto retry;
  }
  __syncthreads();
  out[blockIdx.x * 512 + t] = table[t];
  out[blockIdx.x * 512 + t + 256] = table[t + 256];
}
