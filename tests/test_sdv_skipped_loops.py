"""sdv: loops that can decide no verdict are not run (``oracle.sdv.slice.skippable_loops``).

A grid-stride accumulation such as ``for (p = first + a; p < last; p += ACC) s += x[p] * y[p];``
only reads memory nothing writes and only assigns a value that is stored.  Before, it was
abstracted with Houdini once per unrolled iteration of the loop around it, and the check of a
dot product took 20 s at ACC = 1024 and 247 s at ACC = 4096.  Each kernel below that must
still be run (a read of written memory, a counter or sum used as an index or guard, a write,
an atomic, a barrier) has a racy twin whose race the skip would hide.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from kpl import ast as K
from kpl.frontend import parse_kernel_text
from oracle.sdv import SDVOracle
from oracle.sdv.slice import skippable_loops

HEAD = "//--blockDim=64 --gridDim=2\n"


def _kernel(body: str) -> str:
    return (HEAD + "__global__ void k(float *out, const float *x, const int *idx, int n) {\n"
            "  __shared__ float s[128];\n  int t = threadIdx.x;\n  float acc = 0;\n"
            + body + "}\n")


def _skipped_lines(text: str) -> set[int]:
    kernel = parse_kernel_text(text)
    labels = skippable_loops(kernel)
    return {s.span.line for s in K.walk_stmts(kernel.body)
            if isinstance(s, K.Loop) and s.label in labels and s.span is not None}


def _races(text: str) -> set[str]:
    v = SDVOracle(warp_facts=False, uniform_guards=False).check(parse_kernel_text(text))
    assert not v.unknowns, v.unknowns
    return {r.array for r in v.races}


ACCUMULATE = "  for (int p = t; p < n; p += 64) acc += x[p];\n"


def test_a_loop_that_only_accumulates_read_only_data_is_skipped() -> None:
    text = _kernel(ACCUMULATE + "  s[t] = acc;\n  __syncthreads();\n  out[blockIdx.x * 64 + t] = s[63 - t];\n")
    assert _skipped_lines(text) == {6}
    assert _races(text) == set()
    assert _races(text.replace("  __syncthreads();\n", "")) == {"s"}


@pytest.mark.parametrize("name,body,racy_body", [
    # the loop reads shared memory that threads write: its reads are accesses that can race
    ("reads written memory",
     "  s[t] = t;\n  __syncthreads();\n  for (int p = 0; p < n; p++) acc += s[p % 128];\n"
     "  out[blockIdx.x * 64 + t] = acc;\n",
     "  s[t] = t;\n  for (int p = 0; p < n; p++) acc += s[p % 128];\n  out[blockIdx.x * 64 + t] = acc;\n"),
    # its counter is an index after the loop
    ("counter used as an index",
     "  int p = 0;\n  for (; p < n; p++) acc += x[p];\n  s[t] = acc + p;\n",
     "  int p = 0;\n  for (; p < n; p++) acc += x[p];\n  s[p % 128] = acc;\n"),
    # what it sums is an index
    ("sum used as an index",
     "  int j = 0;\n  for (int p = 0; p < n; p++) j += idx[p];\n  s[t] = j;\n",
     "  int j = 0;\n  for (int p = 0; p < n; p++) j += idx[p];\n  s[j & 127] = t;\n"),
    # what it sums is a guard of a write
    ("sum used as a guard",
     ACCUMULATE + "  if (acc > 0) s[t] = 1;\n",
     ACCUMULATE + "  if (acc > 0) s[0] = t;\n"),
    # it writes shared memory
    ("writes shared memory",
     "  for (int p = 0; p < n; p++) s[t] += x[p];\n",
     "  for (int p = 0; p < n; p++) s[(t + p) % 64] += x[p];\n"),
    # it updates memory atomically (its result is only stored)
    ("atomic",
     "  for (int p = 0; p < n; p++) acc += atomicAdd(&s[t], 1.0f);\n  out[blockIdx.x * 64 + t] = acc;\n",
     "  for (int p = 0; p < n; p++) acc += atomicAdd(&s[t], 1.0f);\n  s[t + 1] = acc;\n"),
])
def test_a_loop_that_can_decide_a_verdict_is_run(name: str, body: str, racy_body: str) -> None:
    assert _skipped_lines(_kernel(racy_body)) == set(), name
    assert _races(_kernel(body)) == set(), name
    assert _races(_kernel(racy_body)) == {"s"}, name


def test_a_loop_with_a_barrier_is_run() -> None:
    text = _kernel("  for (int p = 0; p < n; p++) { acc += x[p]; __syncthreads(); }\n"
                   "  s[t] = acc;\n")
    assert _skipped_lines(text) == set()
    v = SDVOracle().check(parse_kernel_text(text.replace("p < n", "p < t")))
    assert v.divergences  # a thread-dependent trip count around a barrier


def test_nested_data_loops_are_skipped_whole() -> None:
    text = _kernel("  for (int i = 0; i < n; i++)\n    for (int p = i; p < n; p += 2) acc += x[p * i];\n"
                   "  s[t] = acc;\n")
    assert _skipped_lines(text) == {6, 7}  # the inner one is never reached


def _dot_many(acc: int) -> str:
    text = (Path(__file__).resolve().parent.parent / "microbench" / "heavy" / "dot_many.cu").read_text()
    out = text.replace("#define ACC 1024", f"#define ACC {acc}")
    assert out.count(f"ACC {acc}") == 1 and "--blockDim=256 --gridDim=128" in out
    return out


@pytest.mark.parametrize("racy", [False, True])
def test_dot_product_at_sdk_sizes_is_checked_in_seconds(racy: bool) -> None:
    """``microbench/heavy/dot_many.cu`` with 256 threads and 2,048 partial sums: 71 s and 563
    queries before the skip, about 2 s and 210 queries now.  Racy twin: the tree reduction
    without its barrier."""
    text = _dot_many(2048)
    if racy:
        text = text.replace("      __syncthreads();\n      for (int a", "      for (int a")
        assert "__syncthreads();\n      for (int a" not in text
    start = time.process_time()
    v = SDVOracle(warp_facts=False, uniform_guards=False).check(parse_kernel_text(text))
    assert not v.unknowns
    assert {r.array for r in v.races} == ({"part"} if racy else set()), v.races
    assert v.queries < 300, v.queries
    assert time.process_time() - start < 30


FN = "__device__ float twice(float v) { if (v < 0) return 0; return 2 * v; }\n"
FNI = "__device__ int pick(int v) { if (v < 0) return 0; return v & 127; }\n"


def _with(fn: str, body: str) -> str:
    """:func:`_kernel` with the device function ``fn`` after the launch header."""
    return HEAD + fn + _kernel(body)[len(HEAD):]


def test_a_loop_calling_a_data_only_function_is_skipped() -> None:
    """A ``return`` inside an inlined call only leaves that call: the loop stays data-only;
    the returned value flows into the call's result (no guard), so it is skipped when the
    result is only stored."""
    text = _with(FN, "  for (int p = t; p < n; p += 64) acc += twice(x[p]);\n"
                        "  s[t] = acc;\n  __syncthreads();\n  out[blockIdx.x * 64 + t] = s[63 - t];\n")
    assert _skipped_lines(text) == {7}
    assert _races(text) == set()
    assert _races(text.replace("  __syncthreads();\n", "")) == {"s"}


def test_a_called_function_whose_result_is_an_index_is_run() -> None:
    """Racy twin: the returned value is an index after the loop, so it is relevant."""
    body = "  int j = 0;\n  for (int p = 0; p < n; p++) j = pick(idx[p]);\n"
    text = _with(FNI, body + "  s[t] = j;\n")
    racy = _with(FNI, body + "  s[j] = t;\n")
    assert _skipped_lines(racy) == set()
    assert _races(text) == set()
    assert _races(racy) == {"s"}


def _particles() -> str:
    return (Path(__file__).resolve().parent.parent / "microbench" / "heavy"
            / "particles_collide.cu").read_text()


@pytest.mark.parametrize("racy", [False, True])
def test_particles_collide_is_checked_in_seconds(racy: bool) -> None:
    """``microbench/heavy/particles_collide.cu``: 27 neighbour cells, each walking a cell's
    particles through two inlined functions (over 60 s before inlined calls were allowed in
    skipped loops, now 3 queries).  Racy twin: the walk reads the velocities being written,
    so that read is an access and the loop is run (in one neighbour cell: the 27 abstracted
    walks still take minutes, issue 28)."""
    text = _particles()
    if racy:
        text = text.replace("float4 q = sortedPos[j];", "float4 q = newVel[j];")
        text = text.replace("const float4 *sortedPos,\n                            const",
                            "const float4 *sortedPos, const float4 *newVel,\n                            const")
        text = text.replace("i, pos, sortedPos,\n", "i, pos, sortedPos, newVel,\n")
        assert text.count("newVel") == 5, text
        for v in "zyx":  # one neighbour cell: the walk is then abstracted once, not 27 times
            text = text.replace(f"{v} <= 1; {v}++", f"{v} <= -1; {v}++")
        assert text.count("<= -1;") == 3
    start = time.process_time()
    v = SDVOracle().check(parse_kernel_text(text))
    assert not v.unknowns, v.unknowns
    assert {r.array for r in v.races} == ({"newVel"} if racy else set()), v.races
    if not racy:
        assert v.queries < 20, v.queries
        assert time.process_time() - start < 10
