"""Verdict tests for the bundled ``sdv`` oracle (issue 3, items 2 and 4).

Small kernels pin the semantics ([AutoSync] Figs. 2, 4, 6, 7; atomics and warps from
[WarpsAtomics]); the kernel folders pin real-world precision: every correctly synchronized
kernel verifies, every barrier-free micro-benchmark races, and removing any one barrier of
an SDK-style kernel makes it race (or the test records that the barrier was redundant).
"""

from __future__ import annotations

import glob
import os
import time

import conftest
import pytest
from conftest import TID, add, assign, barrier, decl, load, store

from kpl import ast as K
from kpl.frontend import load_kernel, parse_kernel_text
from kpl.labels import LabelTree
from kpl.transform import insert_barriers, strip_barriers
from oracle.base import OracleError, Race, Verdict
from oracle.registry import get_oracle
from oracle.sdv import SDVOracle

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def check(src: str, **opts: object) -> tuple[Verdict, K.Kernel]:
    kernel = parse_kernel_text(src, "t.cu")
    return SDVOracle(**opts).check(kernel), kernel  # type: ignore[arg-type]


def line_pairs(v: Verdict, kernel: K.Kernel) -> set[tuple[int | None, int | None]]:
    tree = LabelTree(kernel)
    return {(tree.line(r.first), tree.line(r.second)) for r in v.races}


def div_lines(v: Verdict, kernel: K.Kernel) -> set[int | None]:
    tree = LabelTree(kernel)
    return {tree.line(d.label) for d in v.divergences}


# --------------------------------------------------------------------------- hand-built AST


def test_hand_built_fig2_race_and_fix() -> None:
    """Fig. 2 as a hand-built AST: ⟨1, 3⟩ races; a barrier between them fixes it."""
    mem = K.Memory("A", K.Space.SHARED, K.INT, (65,))
    tid, x = K.Var("tid"), K.Var("x")

    def kernel(with_barrier: bool) -> K.Kernel:
        s1 = assign(x, load(mem, add(tid, 1)))
        s3 = store(mem, tid, add(load(mem, tid), x))
        k = conftest.kernel([decl(tid, K.Cast(K.INT, TID)), decl(x), s1, assign(x, add(x, 11)),
                             [barrier()] if with_barrier else [], s3],
                            64, name="fig2", memories={"A": mem})
        k.expected["s1"] = str(s1.label)
        k.expected["s3"] = str(s3.label)
        return k

    k = kernel(False)
    v = SDVOracle().check(k)
    assert [(r.first, r.second) for r in v.races] == [(int(k.expected["s1"]),
                                                       int(k.expected["s3"]))]
    r = v.races[0]
    assert r.array == "A" and r.kinds == ("read", "write") and r.space == K.Space.SHARED
    assert r.witness is not None
    t1, t2 = r.witness.thread1[0], r.witness.thread2[0]
    assert t1 + 1 == t2 == r.witness.index  # thread t1 reads A[t1+1] that t2 writes
    assert SDVOracle().check(kernel(True)).verified


# --------------------------------------------------------------------------- paper figures

FIG2 = """//--blockDim=64 --gridDim=1
__global__ void k() {
  __shared__ int A[65];
  int tid = threadIdx.x;
  int x;
  x = A[tid+1];
  x = x+11;
  %s
  A[tid] += x;
}
"""


def test_fig2() -> None:
    v, k = check(FIG2 % "")
    assert line_pairs(v, k) == {(6, 9)}
    assert v.races[0].kind == "read-write" and v.races[0].loop_depth == 0
    v, k = check(FIG2 % "__syncthreads();")
    assert v.verified and v.queries >= 1


FIG4 = """//--blockDim=64 --gridDim=1
__global__ void k(int n) {
  __shared__ int A[65];
  int tid = threadIdx.x;
  int x;
  for (int i = 0; i < n; i++) {
    %s
    x = A[tid+1];
    x = x+i;
    %s
    A[tid] += x;
  }
}
"""


def test_fig4_loop_race_depths() -> None:
    v, k = check(FIG4 % ("", ""))
    assert line_pairs(v, k) == {(8, 11)}
    r = v.races[0]
    assert isinstance(r, Race)
    assert r.loop_depths == (0, 1) and r.loop_depth == 0
    # only the intra-iteration ("red") barrier: the inter-iteration race remains
    v, k = check(FIG4 % ("", "__syncthreads();"))
    assert line_pairs(v, k) == {(8, 11)}
    r = v.races[0]
    assert isinstance(r, Race) and r.loop_depth == 1 and r.loop_depths == (1,)
    # only the inter-iteration ("green") barrier: the intra-iteration race remains
    v, k = check(FIG4 % ("__syncthreads();", ""))
    assert line_pairs(v, k) == {(8, 11)}
    r = v.races[0]
    assert isinstance(r, Race) and r.loop_depths == (0,)
    v, k = check(FIG4 % ("__syncthreads();", "__syncthreads();"))
    assert v.verified


FIG6 = """//--blockDim=64 --gridDim=1
__global__ void k() {
  __shared__ int A[66];
  int tid = threadIdx.x;
  int x;
  x = 0;
  if (tid%%2==0) {
    x = A[tid+2];
    %s
  }
  %s
  if (tid%%6==0) {
    %s
    A[tid] += x;
  }
}
"""


def test_fig6_race_and_divergence() -> None:
    v, k = check(FIG6 % ("", "", ""))
    assert line_pairs(v, k) == {(8, 14)} and not v.divergences
    v, k = check(FIG6 % ("__syncthreads();", "", ""))
    assert div_lines(v, k) == {9}
    v, k = check(FIG6 % ("", "", "__syncthreads();"))
    assert div_lines(v, k) == {13}
    v, k = check(FIG6 % ("", "__syncthreads();", ""))
    assert v.verified


FIG7 = """//--blockDim=64 --gridDim=1
__global__ void k() {
  __shared__ int A[65];
  __shared__ int B[65];
  int tid = threadIdx.x;
  int x, y;
  x = A[tid+1];
  y = B[tid+1];
  %s
  A[tid] = x+y;
  B[tid] = x-y;
}
"""


def test_fig7_two_races_one_barrier() -> None:
    v, k = check(FIG7 % "")
    assert line_pairs(v, k) == {(7, 10), (8, 11)}
    assert {r.array for r in v.races} == {"A", "B"}
    assert check(FIG7 % "__syncthreads();")[0].verified


# --------------------------------------------------------------------------- semantics


def test_self_race_write_write() -> None:
    v, k = check("""//--blockDim=32 --gridDim=1
__global__ void k() {
  __shared__ int A[4];
  A[0] = threadIdx.x;
}
""")
    assert line_pairs(v, k) == {(4, 4)}
    w = v.races[0].witness
    assert v.races[0].kinds == ("write", "write") and w is not None and w.index == 0


UNIFORM = """//--blockDim=[16,16] --gridDim=[4,4]
#include "annotations.h"
__global__ void k(float *out, int imageW, int imageH) {
  %s
  __shared__ float t[16][16];
  int ix = blockIdx.x * 16 + threadIdx.x;
  int iy = blockIdx.y * 16 + threadIdx.y;
  if (ix < imageW && iy < imageH) {
    t[threadIdx.y][threadIdx.x] = 1.0f;
    __syncthreads();
    out[iy * 64 + ix] = t[15 - threadIdx.y][threadIdx.x];
  }
}
"""


def test_barrier_divergence_is_semantic() -> None:
    inc = [os.path.join(ROOT, "tests", "kernels")]
    ok = parse_kernel_text(UNIFORM % "__requires(imageW == 64); __requires(imageH == 64);",
                           "t.cu", include_dirs=inc)
    assert SDVOracle().check(ok).verified
    bad = parse_kernel_text(UNIFORM % "", "t.cu", include_dirs=inc)
    v = SDVOracle().check(bad)
    assert [LabelTree(bad).line(d.label) for d in v.divergences] == [10]


ATOMICS = """//--blockDim=64 --gridDim=1
__global__ void k(int *in) {
  __shared__ int c[4];
  atomicAdd(&c[threadIdx.x %% 4], 1);
  %s
}
"""


def test_atomics() -> None:
    assert check(ATOMICS % "atomicAdd(&c[0], in[threadIdx.x]);")[0].verified
    v, k = check(ATOMICS % "int y = c[(threadIdx.x + 1) % 4];")
    assert line_pairs(v, k) == {(4, 5)} and v.races[0].kinds == ("atomic", "read")


def test_global_cross_block_race() -> None:
    v, k = check("""//--blockDim=64 --gridDim=8
__global__ void k(int *out) {
  out[threadIdx.x] = blockIdx.x;
}
""")
    assert line_pairs(v, k) == {(3, 3)}
    r = v.races[0]
    assert isinstance(r, Race) and r.cross_block and r.space == K.Space.GLOBAL
    assert r.witness is not None and r.witness.block1 != r.witness.block2
    ok, _ = check("""//--blockDim=64 --gridDim=8
__global__ void k(int *out) {
  out[blockIdx.x * 64 + threadIdx.x] = blockIdx.x;
}
""")
    assert ok.verified


REDUCE = """//--blockDim=256 --gridDim=4
__global__ void k(const int *in, int *out) {
  __shared__ int sdata[256];
  unsigned int tid = threadIdx.x;
  sdata[tid] = in[blockIdx.x * 256 + tid];
  __syncthreads();
  for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) sdata[tid] += sdata[tid + s];
    %s
  }
  if (tid == 0) out[blockIdx.x] = sdata[0];
}
"""


def test_reduction_loop() -> None:
    v, k = check(REDUCE % "__syncthreads();")
    assert v.verified
    v, k = check(REDUCE % "")
    assert (8, 8) in line_pairs(v, k)
    assert any(r.first == r.second and r.loop_depth == 1 for r in v.races)


def test_grid_stride_loop_over_param_is_race_free() -> None:
    v, _ = check("""//--blockDim=128 --gridDim=16
__global__ void k(const float *in, float *out, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    out[i] = 2.0f * in[i];
  }
}
""")
    assert v.verified


WARP = """//--blockDim=64 --gridDim=1 %s
__global__ void k(int *out) {
  __shared__ int vsmem[64];
  int tid = threadIdx.x;
  vsmem[tid] = out[tid];
  __syncthreads();
  if (tid < 32) {
    volatile int *v = vsmem;
    v[tid] += v[tid + 16];
    v[tid] += v[tid + 8];
    v[tid] += v[tid + 4];
  }
}
"""


def test_warp_sync_tail() -> None:
    assert check(WARP % "--warp-sync=32")[0].verified
    v, k = check(WARP % "")
    assert {(9, 9), (9, 10), (10, 10), (10, 11), (11, 11)} <= line_pairs(v, k)


def test_warp_sync_same_instruction_write_write_still_races() -> None:
    v, k = check("""//--blockDim=32 --gridDim=1 --warp-sync=32
__global__ void k() {
  __shared__ int A[32];
  A[0] = threadIdx.x;
  A[threadIdx.x] = A[(threadIdx.x + 1) % 32];
}
""")
    assert line_pairs(v, k) == {(4, 4)}


def test_break_continue_uniform() -> None:
    v = SDVOracle().check(load_kernel(os.path.join(ROOT, "tests/kernels/break_continue.cu")))
    assert v.verified


def test_short_circuit_reads_only_when_evaluated() -> None:
    base = """//--blockDim=64 --gridDim=1
__global__ void k(int *d) {
  __shared__ int s[64];
  int tid = threadIdx.x;
  int r = 0;
  if (%s) r = 1;
  if (tid == 0) s[1] = r;
}
"""
    assert check(base % "tid > 63 && s[1] > 0")[0].verified   # never reads s[1]
    assert not check(base % "tid < 63 && s[1] > 0")[0].verified


def test_timeout_gives_unknown_or_timeout_error() -> None:
    src = """//--blockDim=256 --gridDim=64
__global__ void k(unsigned int *a, unsigned int p, unsigned int q) {
  unsigned int i = (threadIdx.x * p * p + blockIdx.x * q) / (q | 1) %% (p + 7);
  a[i * i * p] = a[(i + 1) * q];
}
"""
    kernel = parse_kernel_text(src.replace("%%", "%"), "t.cu")
    try:
        v = SDVOracle(timeout=0.01).check(kernel)
    except OracleError as exc:
        assert exc.timeout
    else:
        assert not v.verified


def test_registry_finds_sdv() -> None:
    o = get_oracle("sdv", timeout=5.0)
    assert isinstance(o, SDVOracle) and o.name == "sdv"


def test_named_barrier_defers_to_named_oracle() -> None:
    paths = sorted(glob.glob(os.path.join(ROOT, "tests/kernels/named/*.cu")))
    assert paths, "tests/kernels/named/ has no kernels"
    k = load_kernel(paths[0])
    v = SDVOracle().check(k)
    assert any("--oracle named" in f.message for f in v.findings)


# --------------------------------------------------------------------------- kernel folders

def _files(pattern: str) -> list[str]:
    return sorted(glob.glob(os.path.join(ROOT, pattern)))


def _header(path: str) -> str:
    with open(path) as fh:
        return fh.readline().strip()


def _kernels(path: str) -> list[K.Kernel]:
    from kpl.frontend import kernel_names, load_kernels
    ks = load_kernels(path)
    assert kernel_names(ks)
    return ks


@pytest.mark.parametrize("path", _files("microbench/expected/*.cu"), ids=os.path.basename)
def test_microbench_expected_verify(path: str) -> None:
    v = SDVOracle().check(load_kernel(path))
    assert v.verified, (v.races, v.divergences, v.unknowns)


PAPER_RACES = {
    "1-1-main.cu": 1, "1-1-if.cu": 1, "1-1-loop-inter.cu": 1, "1-1-loop-intra.cu": 1,
    "2-1-main.cu": 2, "2-1-loop-d2-intra.cu": 2, "2-2-loop-both.cu": 1,
    "2-2-loop-d2-both.cu": 2,
}


@pytest.mark.parametrize("path", _files("microbench/*.cu"), ids=os.path.basename)
def test_microbench_races(path: str) -> None:
    v = SDVOracle().check(load_kernel(path))
    assert not v.divergences and not v.unknowns
    name = os.path.basename(path)
    assert len(v.races) == PAPER_RACES.get(name, len(v.races)) and v.races


#: ``//pass`` kernels whose race-freedom needs an assumption the file does not state: with a
#: pointer-pitch parameter unconstrained (``out[y * width + x]``, width may be 0), two blocks
#: really can write one element.  GPUVerify reports the same; the files need a
#: ``__requires(width == ...)`` (reported to the lead).  strict: fixing the file flags this.
MISSING_REQUIRES: set[str] = set()


def _pass_params() -> list[object]:
    out: list[object] = []
    for p in _files("tests/kernels/*.cu") + _files("sdk_kernels/*.cu"):
        if _header(p) != "//pass":
            continue
        name = os.path.basename(p)
        marks = [pytest.mark.xfail(strict=True, reason="kernel lacks __requires on its pitch")
                 ] if name in MISSING_REQUIRES else []
        out.append(pytest.param(p, id=name, marks=marks))
    return out


@pytest.mark.parametrize("path", _pass_params())
def test_pass_kernels_verify(path: str) -> None:
    for k in _kernels(path):
        v = SDVOracle().check(k)
        assert v.verified, (k.name, v.races, v.divergences, v.unknowns)


@pytest.mark.parametrize("path", [p for p in _files("tests/kernels/*.cu")
                                  if _header(p).startswith("//xfail")], ids=os.path.basename)
def test_xfail_kernels_fail(path: str) -> None:
    for k in _kernels(path):
        assert not SDVOracle().check(k).verified, k.name


@pytest.mark.parametrize("path", _files("sdk_kernels/*.cu"), ids=os.path.basename)
def test_sdk_removing_a_barrier_races(path: str) -> None:
    """Removing any one barrier makes the kernel race (or diverge), except for at most
    ``original_barriers - min_barriers`` barriers that the file itself declares redundant
    (e.g. the barrier in reduce5's dead ``blockSize >= 512`` branch)."""
    k = load_kernel(path)
    stripped, anchors = strip_barriers(k)
    slack = int(k.expected.get("original_barriers", len(anchors))) - int(
        k.expected.get("min_barriers", len(anchors)))
    redundant = []
    for i in range(len(anchors)):
        keep = anchors[:i] + anchors[i + 1:]
        cand, _ = insert_barriers(stripped, keep, check_placeable=False)
        v = SDVOracle().check(cand)
        assert not v.unknowns
        if v.verified:
            redundant.append(i + 1)
    assert len(redundant) <= slack, f"redundant barriers {redundant} in {path}"
    if anchors:
        assert not SDVOracle().check(stripped).verified


def test_speed_median_microbench() -> None:
    times = []
    for p in _files("microbench/*.cu") + _files("microbench/expected/*.cu"):
        k = load_kernel(p)
        t = time.perf_counter()
        SDVOracle().check(k)
        times.append(time.perf_counter() - t)
    times.sort()
    assert times[len(times) // 2] < 1.0


# --------------------------------------------------------------------------- shared C semantics


@pytest.mark.parametrize("op", ["<<", ">>"])
@pytest.mark.parametrize(("left", "count"), [
    ((K.INT, 1), (K.INT, 3)), ((K.INT, -8), (K.INT, 2)), ((K.INT, 1), (K.INT, 32)),
    ((K.INT, -8), (K.INT, 40)), ((K.UINT, 0x80000000), (K.INT, 33)), ((K.INT, 5), (K.INT, -1)),
    ((K.LONG, -1), (K.INT, 63)), ((K.LONG, 1), (K.INT, 64)), ((K.INT, 7), (K.LONG, 1 << 32)),
    ((K.UINT, 12), (K.ULONG, (1 << 32) + 2)),
])
def test_symbolic_shift_matches_ctypes(op: str, left: tuple[K.CType, int],
                                       count: tuple[K.CType, int]) -> None:
    """The symbolic ``<<``/``>>`` gives what :func:`kpl.ctypes.shift` documents, including
    counts at or above the width and negative counts (the one shift rule of all oracles)."""
    import z3

    from kpl import ctypes
    from oracle.sdv.executor import Executor, QueryEngine
    from oracle.sdv.state import TRUE

    (lt, a), (rt, n) = left, count
    rtype = ctypes.binary_type(op, lt, rt)
    kernel = K.Kernel("k", [], K.Block([]), K.Launch((2, 1, 1)), "k.cu", "")
    ex = Executor(kernel, "same", QueryEngine(None, 1000, None))
    v = z3.simplify(ex.ev(K.Binary(op, K.Const(a, lt), K.Const(n, rt), rtype), 0, TRUE))
    assert z3.is_bv_value(v)
    got = v.as_signed_long() if rtype.signed else v.as_long()
    assert got == ctypes.shift(op, a, n, rtype.bits, rtype.signed)
