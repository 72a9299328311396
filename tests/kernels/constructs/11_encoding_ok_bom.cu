//pass
//--blockDim=128 --gridDim=8
// Saved by a Windows editor: UTF-8 with a byte-order mark and CRLF line endings.
// Shift-by-one through shared memory with a barrier between the write and the neighbour
// read.  Race-free.

// Décalage d'un élément vers la gauche (© 2009, résultat dans out).
__global__ void shift_left(const float *in, float *out) {
  __shared__ float s[129];
  int t = threadIdx.x;
  s[t] = in[blockIdx.x * 128 + t];
  if (t == 0)
    s[128] = 0.0f;
  __syncthreads();
  out[blockIdx.x * 128 + t] = s[t + 1];  // « voisin »
}
