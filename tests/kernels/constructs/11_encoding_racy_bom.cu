//xfail:NOT_ALL_VERIFIED
//--blockDim=128 --gridDim=8
// autosync: races=12-15
// Saved by a Windows editor: UTF-8 with a byte-order mark and CRLF line endings.
// Shift-by-one WITHOUT the barrier: thread t reads s[t + 1] (line R1) while thread t + 1
// writes it (line R1).

// Décalage d'un élément vers la gauche (© 2009, résultat dans out).
__global__ void shift_left(const float *in, float *out) {
  __shared__ float s[129];
  int t = threadIdx.x;
  s[t] = in[blockIdx.x * 128 + t];  // R1
  if (t == 0)
    s[128] = 0.0f;
  out[blockIdx.x * 128 + t] = s[t + 1];  // R1 « voisin »
}
