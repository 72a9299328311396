"""CUB's block and warp collectives (kpl/frontend/include/cub/cub.cuh, written here): the
contract CUB's documentation states is checked like any barrier code.  A TempStorage reused
without a __syncthreads() races (tests/kernels/constructs/22_cub_*: the construct table
judges the pair), a collective under divergent control is barrier divergence, `fix` puts the
barrier between the user's two calls, and device-wide algorithms in host code read."""

from __future__ import annotations

import shutil
from pathlib import Path

from typer.testing import CliRunner

from autosync.commands.cli import app
from kpl.frontend import load_kernel, parse_kernel_text
from oracle.dynamic import DynamicOracle
from oracle.sdv import SDVOracle

CONSTRUCTS = Path(__file__).parent / "kernels" / "constructs"

DIVERGENT = """//--blockDim=128 --gridDim=1
#include <cub/block/block_scan.cuh>
__global__ void k(const int *flags, int *out) {
  typedef cub::BlockScan<int, 128> Scan;
  __shared__ typename Scan::TempStorage t;
  int v = flags[threadIdx.x], r = 0;
  if (v > 0) Scan(t).InclusiveSum(v, r);
  out[threadIdx.x] = r;
}
"""


SMALL = """//--blockDim=32 --gridDim=1
#include <cub/cub.cuh>
__global__ void k(const int *in, int *out) {
  __shared__ union {
    cub::BlockReduce<int, 32>::TempStorage reduce;
    cub::BlockScan<int, 32>::TempStorage scan;
  } temp;
  int v = in[blockIdx.x * 32 + threadIdx.x], start;
  int total = cub::BlockReduce<int, 32>(temp.reduce).Sum(v);
  __syncthreads();
  cub::BlockScan<int, 32>(temp.scan).ExclusiveSum(v, start);
  out[blockIdx.x * 32 + threadIdx.x] = start + total;
}
"""


def test_reused_storage_races() -> None:
    racy = SDVOracle().check(load_kernel(str(CONSTRUCTS / "22_cub_racy.cu")))
    assert {r.array for r in racy.races} == {"temp"}
    assert SDVOracle().check(load_kernel(str(CONSTRUCTS / "22_cub_ok.cu"))).verified


def test_concrete_runs_agree() -> None:
    """The dynamic oracle runs the same bodies (a small block: it executes every loop)."""
    ok = parse_kernel_text(SMALL, "small.cu")
    racy = parse_kernel_text(SMALL.replace("  __syncthreads();\n", ""), "small.cu")
    assert DynamicOracle(blocks=1).check(ok).verified
    assert {r.array for r in DynamicOracle(blocks=1).check(racy).races} == {"temp"}


def test_collective_under_divergent_control_is_divergence() -> None:
    verdict = SDVOracle().check(parse_kernel_text(DIVERGENT, "scan.cu"))
    assert verdict.divergences and not verdict.races
    uniform = SDVOracle().check(parse_kernel_text(DIVERGENT.replace("if (v > 0) ", ""), "scan.cu"))
    assert uniform.verified


def test_fix_places_the_barrier_between_the_users_calls(tmp_path: Path) -> None:
    src = tmp_path / "k.cu"
    shutil.copy(CONSTRUCTS / "22_cub_racy.cu", src)
    res = CliRunner().invoke(app, ["fix", str(src)])
    assert res.exit_code == 0, res.output
    lines = src.read_text().splitlines()
    barriers = [n for n, line in enumerate(lines) if "__syncthreads();" in line]
    reduce_at = next(n for n, line in enumerate(lines) if "Reduce(temp.reduce)" in line)
    scan_at = next(n for n, line in enumerate(lines) if "Scan(temp.scan)" in line)
    assert len(barriers) == 1 and reduce_at < barriers[0] < scan_at


def test_device_wide_algorithms_in_host_code_read() -> None:
    kernel = parse_kernel_text("""//--blockDim=64 --gridDim=1
#include <cub/cub.cuh>
__global__ void k(int *a) { a[threadIdx.x] += 1; }
void host(int *a, int *out, void *tmp, size_t bytes, int n) {
  cub::DeviceReduce::Sum(tmp, bytes, a, out, n);
  cub::DeviceScan::ExclusiveSum(tmp, bytes, a, out, n);
  k<<<1, 64>>>(a);
}
""", "host.cu")
    assert SDVOracle().check(kernel).verified
