"""No call is ever ignored (issue 28, item 1): a call with no body is a modelled built-in of
one family of our headers, or an error with one line naming it (exit 2).

One kernel per family shows its model is used (the KPL node the call becomes, and a verdict
that depends on it); the racy/divergent twins show a barrier-like call is a barrier where it
is one (cooperative groups' free ``synchronize(g)`` under divergent control) and an error
where it is not modelled -- it used to become a pure function call, so the race behind it
passed unnoticed.
"""

from __future__ import annotations

import pytest

from kpl import ast as K
from kpl.errors import KplError
from kpl.frontend import parse_kernel_text
from kpl.placement import BarrierKind
from oracle.sdv import SDVOracle

HEAD = "//--blockDim=64 --gridDim=1\n"


def _kernel(body: str, includes: str = "", params: str = "int *out") -> K.Kernel:
    return parse_kernel_text(f"{HEAD}{includes}__global__ void k({params}) {{\n"
                             "  __shared__ int s[64];\n  int tid = threadIdx.x;\n"
                             f"{body}\n}}\n")


def _nodes(k: K.Kernel, cls: type) -> list[object]:
    out: list[object] = []
    for st in K.walk_stmts(k.body):
        if isinstance(st, cls):
            out.append(st)
        from oracle.sdv.state import stmt_exprs
        for e in stmt_exprs(st):
            out.extend(x for x in K.walk_expr(e) if isinstance(x, cls))
    return out


def _calls(k: K.Kernel) -> set[str]:
    return {c.name for c in _nodes(k, K.Call)}  # type: ignore[attr-defined]


def test_math_is_a_pure_function() -> None:
    """``sqrtf`` is a function of its argument: equal arguments, equal values -- so the
    index ``(int)sqrtf(v)`` with a thread-uniform ``v`` is one cell for all threads (a write
    race), and a thread-dependent argument is not proved distinct (still a race)."""
    k = _kernel("  float v = (float)out[0];\n  s[(int)sqrtf(v) % 64] = tid;\n"
                "  out[tid] = s[tid];")
    assert "sqrtf" in _calls(k)
    assert any(r.array == "s" for r in SDVOracle().check(k).races)


def test_half_precision_is_a_pure_function() -> None:
    k = _kernel("  __half h = __float2half((float)tid);\n"
                "  s[tid] = (int)__half2float(__hadd(h, h));\n  out[tid] = s[tid];",
                includes="#include <cuda_fp16.h>\n")
    assert {"__float2half", "__half2float"} & _calls(k)
    assert SDVOracle().check(k).verified


def test_warp_intrinsic_is_a_fresh_value() -> None:
    """A shuffle's value is not a function of its arguments (it is another lane's): two
    threads shuffling the same value may get different ones, so the index it forms may
    collide with a neighbour's -- a race; the same index through ``tid`` is none."""
    racy = _kernel("  int v = __shfl_down_sync(0xffffffffu, tid, 1);\n  s[v % 64] = tid;\n"
                   "  out[tid] = s[tid];")
    assert "__shfl_down_sync" in _calls(racy)
    assert any(r.array == "s" for r in SDVOracle().check(racy).races)


def test_atomic_is_an_atomic_access() -> None:
    ok = _kernel("  atomicAdd(&s[0], 1);\n  __syncthreads();\n  out[tid] = s[0];")
    assert _nodes(ok, K.Atomic)
    assert SDVOracle().check(ok).verified
    racy = _kernel("  atomicAdd(&s[0], 1);\n  out[tid] = s[0];")
    assert [r.array for r in SDVOracle().check(racy).races] == ["s"]


def test_texture_fetch_is_a_read() -> None:
    k = _kernel("  s[tid] = (int)tex1Dfetch(tx, tid);\n  out[tid] = s[tid];",
                includes="texture<float, 1, cudaReadModeElementType> tx;\n")
    assert "tex1Dfetch" not in _calls(k) or _nodes(k, K.Load)
    assert SDVOracle().check(k).verified


def test_curand_draw_updates_the_state() -> None:
    """A draw reads and writes the generator state: one state shared by all threads races."""
    inc = "#include <curand_kernel.h>\n"
    own = _kernel("  __shared__ curandState st[64];\n  curand_init(1234, tid, 0, &st[tid]);\n"
                  "  out[tid] = (int)curand(&st[tid]);", includes=inc)
    assert SDVOracle().check(own).verified
    shared = _kernel("  __shared__ curandState st[64];\n  curand_init(1234, tid, 0, &st[tid]);\n"
                     "  out[tid] = (int)curand(&st[0]);", includes=inc)
    assert any(r.array == "st" for r in SDVOracle().check(shared).races)


CG = "#include <cooperative_groups.h>\nusing namespace cooperative_groups;\n"


@pytest.mark.parametrize("spelling", ["b.sync()", "sync(b)", "synchronize(b)",
                                      "cooperative_groups::synchronize(b)"])
def test_cooperative_groups_block_sync_is_a_barrier(spelling: str) -> None:
    """Every spelling of a block group's sync (the old free functions too) is
    ``__syncthreads()``: it orders the write and the read; under divergent control it is a
    divergent barrier, where a call ignored would have hidden both."""
    body = ("  thread_block b = this_thread_block();\n  s[tid] = tid;\n  {sync};\n"
            "  out[tid] = s[(tid + 1) % 64];")
    ok = _kernel(body.format(sync=spelling), includes=CG)
    assert [b.kind for b in _nodes(ok, K.Barrier)] == [BarrierKind.SYNCTHREADS]  # type: ignore[attr-defined]
    assert SDVOracle().check(ok).verified
    div = _kernel(body.format(sync=f"if (tid < 32) {spelling}"), includes=CG)
    v = SDVOracle().check(div)
    assert v.divergences and any(r.array == "s" for r in v.races)


def test_tile_sync_is_a_warp_barrier() -> None:
    k = _kernel("  thread_block_tile<32> w = tiled_partition<32>(this_thread_block());\n"
                "  s[tid] = tid;\n  w.sync();\n  out[tid] = s[tid ^ 1];", includes=CG)
    assert [b.kind for b in _nodes(k, K.Barrier)] == [BarrierKind.SYNCWARP]  # type: ignore[attr-defined]


def test_trap_and_breakpoint_have_no_effect_but_hide_nothing() -> None:
    """``__trap()`` is taken as going on: the race after it is still reported."""
    k = _kernel("  s[tid] = tid;\n  if (flag[0] == 7) __trap();\n  __brkpt();\n"
                "  out[tid] = s[(tid + 1) % 64];", params="int *out, const int *flag")
    assert [r.array for r in SDVOracle().check(k).races] == ["s"]


@pytest.mark.parametrize("decl, call", [
    # a user's prototype: no body anywhere
    ("__device__ void block_wait();\n", "block_wait()"),
    ("extern \"C\" __device__ void __syncthreads_when(int);\n", "__syncthreads_when(1)"),
])
def test_unmodelled_bodiless_call_is_an_error_naming_it(decl: str, call: str) -> None:
    """(In a file without GPUVerify's flags line: in one with it, GPUVerify's rule makes the
    call an arbitrary value with no effect, tests/test_gpuverify_prelude.py.)"""
    text = (f"{decl}__global__ void k(int *out) {{\n  __shared__ int s[64];\n"
            f"  s[threadIdx.x] = 1;\n  if (threadIdx.x < 32) {call};\n"
            "  out[threadIdx.x] = s[(threadIdx.x + 1) % 64];\n}\n")
    with pytest.raises(KplError) as ei:
        parse_kernel_text(text, block_dim=64, grid_dim=1)
    name = call.split("(")[0]
    assert f"'{name}'" in ei.value.message and "\n" not in ei.value.message


def test_race_inside_a_bundled_body_is_reported_at_the_users_call() -> None:
    """``__stcs`` has a body in our header; its store races, and the race names the user's
    line and column, never ``<autosync>/__autosync_warp.h``."""
    k = _kernel("  __stcs(out + 1, tid);")
    spans = {s.label: s.span for s in K.walk_stmts(k.body)}
    races = SDVOracle().check(k).races
    assert races
    for r in races:
        span = spans[r.first]
        assert span is not None and (span.file, span.line, span.col) == (k.source_path, 5, 3)


@pytest.mark.parametrize("name", ["INFINITY", "NAN", "M_PI", "HUGE_VALF", "INT_MAX", "UINT_MAX"])
def test_constants_nvcc_makes_visible_without_an_include(name: str) -> None:
    """nvcc's implicit includes give a .cu file <math.h>'s and <limits.h>'s constants; a kernel
    that uses them with no #include is accepted here too."""
    k = _kernel(f"  float m = (float)({name});\n  if (tid == 0) out[0] = (int)m;")
    assert SDVOracle().check(k).races == []


def test_assert_needs_no_include() -> None:
    """assert() too, as with nvcc; its condition is still evaluated (the read races)."""
    k = _kernel("  s[tid] = tid;\n  assert(s[(tid + 1) % 64] >= 0);")
    assert len(SDVOracle().check(k).races) == 1


@pytest.mark.parametrize("spelling", ["__syncthreads_or(s[(tid + 1) % 64] > 3);",
                                      "int any = __syncthreads_or(s[(tid + 1) % 64] > 3);"])
def test_predicate_of_a_barrier_is_read_before_it(spelling: str) -> None:
    """The predicate's read races with the write before the barrier it belongs to (it used
    to be dropped in statement position), and not with the write after it."""
    racy = _kernel(f"  s[tid] = tid;\n  {spelling}\n  s[tid] = 0;")
    assert len(SDVOracle().check(racy).races) == 1
    ok = _kernel(f"  s[tid] = tid;\n  __syncthreads();\n  {spelling}\n  s[tid] = 0;")
    assert SDVOracle().check(ok).verified


def test_barrier_result_under_divergence_is_divergence() -> None:
    k = _kernel("  int n = 0;\n  if (tid < 32) n = __syncthreads_count(tid > 3);\n  out[tid] = n;")
    verdict = SDVOracle().check(k)
    assert verdict.divergences and not verdict.races
    uniform = _kernel("  int n = __syncthreads_count(tid > 3);\n  if (n > 0) __syncthreads();\n"
                      "  out[tid] = n;")
    assert SDVOracle().check(uniform).verified  # the same result in every thread


def test_compare_keeps_a_barrier_that_is_part_of_an_expression() -> None:
    """``compare`` strips the barriers it may place again; ``while (__syncthreads_or(c))`` is
    not one of them (its text is the loop's condition), and the search finds the other."""
    from typer.testing import CliRunner

    from autosync.commands.cli import app
    res = CliRunner().invoke(app, ["compare", "tests/kernels/constructs/22_syncpred_ok.cu"])
    assert res.exit_code == 0, res.output
    assert "while (__syncthreads_or(changed))" in res.stdout
