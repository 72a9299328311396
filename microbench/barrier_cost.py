"""Measure WC, the cost of a ``__syncwarp()`` relative to a ``__syncthreads()`` (issue 16).

``fix --warp-barrier-cost`` defaults to 0.05, from this script's figures on an H100
(autosync/algorithm/cost.py gives them); run it on your own GPU to tune the flag.  It writes a small
CUDA program of our own, compiles it with ``nvcc`` and runs it.  Each kernel
runs a loop of ``ITERS`` steps; a step is a dependent shared-memory exchange followed by one
barrier of the kind under test (or none, the baseline), timed with ``clock64()`` per block.
The barrier's cost is the step time minus the baseline step time, in cycles, for blocks of
32 to 1024 threads; WC is the ratio at the block size asked for (default 256).  A second
table times a whole kernel: a block reduction whose warp-synchronous tail is ordered by
``__syncwarp()`` or by ``__syncthreads()`` (what ``fix`` chooses between), many blocks per SM,
WC again the ratio of the two over an unsynchronized baseline.

Usage::

    python microbench/barrier_cost.py [--threads 256] [--arch sm_90] [--keep DIR]

Without ``nvcc`` it says so and exits 2; with ``nvcc`` but no GPU the program is compiled
(a check that it builds) and the run's error is printed, exit 1.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ITERS = 4096

PROGRAM = r"""
#include <cstdio>
#include <cuda_runtime.h>

#define ITERS %(iters)d

// kind 0: no barrier (baseline), 1: __syncwarp(), 2: __syncthreads()
template <int KIND>
__global__ void steps(int *sink, long long *cycles) {
  __shared__ int s[1024];
  unsigned t = threadIdx.x;
  int x = t;
  s[t] = x;
  __syncthreads();
  long long start = clock64();
  for (int i = 0; i < ITERS; i++) {
    // each step reads a neighbour in the same warp and writes back: a dependent chain
    x += s[(t & ~31u) | ((t + 1) & 31u)];
    s[t] = x;
    if (KIND == 1) __syncwarp();
    if (KIND == 2) __syncthreads();
  }
  long long stop = clock64();
  if (t == 0) cycles[blockIdx.x] = stop - start;
  sink[blockIdx.x * blockDim.x + t] = x;
}

template <int KIND>
double per_step(int threads, int blocks, int *sink, long long *cycles) {
  long long host[1024];
  steps<KIND><<<blocks, threads>>>(sink, cycles);  // warm-up
  steps<KIND><<<blocks, threads>>>(sink, cycles);
  if (cudaDeviceSynchronize() != cudaSuccess) return -1.0;
  cudaMemcpy(host, cycles, blocks * sizeof(long long), cudaMemcpyDeviceToHost);
  double sum = 0;
  for (int b = 0; b < blocks; b++) sum += (double)host[b];
  return sum / blocks / ITERS;
}

// The same question inside a whole kernel: the warp-synchronous tail of a block reduction
// (the last six halvings, 32 -> 1) ordered by a __syncwarp() in warp 0 (kind 1), by a
// __syncthreads() that every warp must reach (kind 2), or not at all (kind 0, a racy
// baseline timed only to subtract).  Many blocks per SM, timed with CUDA events, so the
// figure includes the other warps' stall at a block barrier.
template <int KIND>
__global__ void reduce_tail(const float *in, float *out, int reps) {
  __shared__ volatile float s[1024];
  unsigned t = threadIdx.x;
  float acc = 0;
  for (int r = 0; r < reps; r++) {
    s[t] = in[blockIdx.x * blockDim.x + t] + r;
    __syncthreads();
    for (unsigned h = blockDim.x / 2; h > 32; h >>= 1) {
      if (t < h) s[t] += s[t + h];
      __syncthreads();
    }
    if (KIND == 2) {
      for (unsigned h = 32; h > 0; h >>= 1) {
        if (t < h) s[t] += s[t + h];
        __syncthreads();
      }
    } else if (t < 32) {
      for (unsigned h = 32; h > 0; h >>= 1) {
        if (t < h) s[t] += s[t + h];
        if (KIND == 1) __syncwarp();
      }
    }
    if (t == 0) acc += s[0];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = acc;
}

template <int KIND>
double tail_ms(int threads, int blocks, const float *in, float *out) {
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  reduce_tail<KIND><<<blocks, threads>>>(in, out, 64);  // warm-up
  cudaEventRecord(a);
  for (int i = 0; i < 10; i++) reduce_tail<KIND><<<blocks, threads>>>(in, out, 256);
  cudaEventRecord(b);
  if (cudaEventSynchronize(b) != cudaSuccess) return -1.0;
  float ms = 0;
  cudaEventElapsedTime(&ms, a, b);
  return ms / 10;
}

int main() {
  int dev = 0, sms = 0;
  cudaError_t err = cudaGetDevice(&dev);
  if (err != cudaSuccess) { printf("error %%s\n", cudaGetErrorString(err)); return 1; }
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
  int *sink; long long *cycles;
  cudaMalloc(&sink, 1024 * 1024 * sizeof(int));
  cudaMalloc(&cycles, 1024 * sizeof(long long));
  for (int threads = 32; threads <= 1024; threads *= 2) {
    double none = per_step<0>(threads, sms, sink, cycles);
    double warp = per_step<1>(threads, sms, sink, cycles);
    double block = per_step<2>(threads, sms, sink, cycles);
    if (none < 0 || warp < 0 || block < 0) { printf("error: a kernel failed\n"); return 1; }
    printf("threads %%d none %%.2f warp %%.2f block %%.2f\n", threads, none, warp, block);
  }
  float *in, *out;
  int blocks = sms * 16;
  cudaMalloc(&in, (size_t)blocks * 1024 * sizeof(float));
  cudaMemset(in, 0, (size_t)blocks * 1024 * sizeof(float));
  cudaMalloc(&out, blocks * sizeof(float));
  for (int threads = 64; threads <= 1024; threads *= 2) {
    double none = tail_ms<0>(threads, blocks, in, out);
    double warp = tail_ms<1>(threads, blocks, in, out);
    double block = tail_ms<2>(threads, blocks, in, out);
    if (none < 0 || warp < 0 || block < 0) { printf("error: a kernel failed\n"); return 1; }
    printf("tail %%d none %%.4f warp %%.4f block %%.4f\n", threads, none, warp, block);
  }
  return 0;
}
"""


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--threads", type=int, default=256, help="block size WC is reported for")
    ap.add_argument("--arch", default=None, help="nvcc -arch value (default: nvcc's)")
    ap.add_argument("--keep", default=None, help="folder to keep the source and binary in")
    args = ap.parse_args()
    nvcc = shutil.which("nvcc")
    if nvcc is None:
        print("barrier_cost: nvcc not found", file=sys.stderr)
        return 2
    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="barrier-cost-"))
    work.mkdir(parents=True, exist_ok=True)
    src, exe = work / "barrier_cost.cu", work / "barrier_cost"
    src.write_text(PROGRAM % {"iters": ITERS})
    cmd = [nvcc, "-O3", "-o", str(exe), str(src)] + (["-arch", args.arch] if args.arch else [])
    built = subprocess.run(cmd, capture_output=True, text=True)
    if built.returncode != 0:
        print(built.stderr, file=sys.stderr)
        return 1
    print(f"built {exe} ({' '.join(cmd[1:])})")
    run = subprocess.run([str(exe)], capture_output=True, text=True)
    print(run.stdout, end="")
    if run.returncode != 0:
        print(f"barrier_cost: the program failed (no GPU?): {run.stderr.strip()}", file=sys.stderr)
        return 1
    rows: dict[int, tuple[float, float, float]] = {}
    tails: dict[int, tuple[float, float, float]] = {}
    for line in run.stdout.splitlines():
        f = line.split()
        if f and f[0] in ("threads", "tail"):
            (rows if f[0] == "threads" else tails)[int(f[1])] = (
                float(f[3]), float(f[5]), float(f[7]))
    if args.threads not in rows:
        print(f"barrier_cost: no row for {args.threads} threads", file=sys.stderr)
        return 1
    none, warp, block = rows[args.threads]
    wc = (warp - none) / (block - none) if block > none else float("nan")
    print(f"cycles per barrier at {args.threads} threads: __syncwarp {warp - none:.2f}, "
          f"__syncthreads {block - none:.2f}; WC = {wc:.3f}")
    for threads, (none, warp, block) in sorted(tails.items()):
        ratio = (warp - none) / (block - none) if block > none else float("nan")
        print(f"reduction tail at {threads} threads: kernel ms none {none:.4f}, __syncwarp "
              f"{warp:.4f}, __syncthreads {block:.4f}; WC = {ratio:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
