"""GPUVerify's annotation language (kpl.fe.annotations; oracle.sdv.stmt.visit_Assert; oracle.dynamic.executor).

The construct kernels tests/kernels/constructs/18_* (a holding and a failing twin per
annotation) are judged through ``autosync check`` by tests/test_constructs.py; here the
same kernels are run through BOTH oracles directly, and the rules that the construct table
cannot see are pinned: an unchecked invariant is never assumed, a failed assertion is its
own kind of error in every output format, ``fix`` refuses it, ``__requires`` of a device
function is no kernel assumption, and ``__constant__`` stores are bad input.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from autosync.commands.cli import app
from kpl import ast as K
from kpl.errors import KplError
from kpl.frontend import load_kernel, parse_kernel_text
from kpl.labels import LabelTree
from oracle.dynamic import DynamicOracle
from oracle.sdv import SDVOracle

ROOT = Path(__file__).resolve().parent.parent
CONSTRUCTS = ROOT / "tests" / "kernels" / "constructs"
sys.path.insert(0, str(ROOT / "microbench"))

import constructs  # noqa: E402

HOLDING = sorted(p.name for p in CONSTRUCTS.glob("18_*_ok.cu"))
FAILING = sorted(p.name for p in CONSTRUCTS.glob("18_*_fail*.cu"))
#: failures the dynamic oracle cannot see, by design: it runs two blocks (the precondition
#: fails in block 3) and pairs threads of one block only (__same_group is then true)
DYNAMIC_BLIND = {"18_requires_fail.cu", "18_same_group_fail.cu"}


def _assert_lines(verdict: object, kernel: K.Kernel) -> set[int]:
    tree = LabelTree(kernel)
    return {tree.line(lab) for f in verdict.findings if f.kind == "assertion"  # type: ignore[attr-defined]
            for lab in f.labels}


def test_every_annotation_has_both_twins() -> None:
    stems = {n[len("18_"):n.index("_ok")] for n in HOLDING}
    for stem in stems - {"annotations"}:  # 18_annotations_ok's twin is a racy kernel
        assert any(n.startswith(f"18_{stem}_fail") for n in FAILING), stem
    assert len(stems) >= 9 and len(FAILING) >= 10


@pytest.mark.parametrize("name", HOLDING)
def test_holding_annotations_verify_under_both_oracles(name: str) -> None:
    kernel = load_kernel(str(CONSTRUCTS / name))
    for oracle in (SDVOracle(timeout=60), DynamicOracle()):
        verdict = oracle.check(kernel)
        assert verdict.verified, (oracle.name, verdict)


@pytest.mark.parametrize("name", FAILING)
def test_failing_annotation_is_an_assertion_at_its_line(name: str) -> None:
    path = CONSTRUCTS / name
    line = constructs.expectation(path).assert_fails
    assert line is not None
    kernel = load_kernel(str(path))
    oracles = [SDVOracle(timeout=60)] + ([] if name in DYNAMIC_BLIND else [DynamicOracle()])
    for oracle in oracles:
        verdict = oracle.check(kernel)
        assert not verdict.races and not verdict.divergences, (oracle.name, verdict)
        assert _assert_lines(verdict, kernel) == {line}, (oracle.name, verdict)


def test_an_unchecked_invariant_is_never_assumed() -> None:
    """A false invariant claiming that only the first 64 cells are touched: assuming it
    would hide the race of s[i + 1] against the neighbour's s[i] in later iterations."""
    src = """//--blockDim=64 --gridDim=1
__global__ void k(float *out, int n) {
  __requires(n == 512);
  __shared__ float s[513];
  for (int i = threadIdx.x; __invariant(i < 64), i < n; i += 64) {
    s[i + 1] = s[i] + 1.0f;
  }
  out[threadIdx.x] = s[threadIdx.x];
}
"""
    kernel = parse_kernel_text(src, "inv.cu")
    verdict = SDVOracle(timeout=60).check(kernel)
    assert verdict.races, verdict
    assert _assert_lines(verdict, kernel) == {5}


def test_device_requires_is_checked_not_assumed() -> None:
    src = """//--blockDim=32 --gridDim=1
__device__ int pick(int i) {
  __requires(i < 16);
  return i;
}
__global__ void k(int *out) {
  __shared__ int s[32];
  s[pick(threadIdx.x)] = 1;
  out[threadIdx.x] = 0;
}
"""
    kernel = parse_kernel_text(src, "req.cu")
    assert kernel.requires == []  # the callee's precondition is no assumption on the kernel
    asserts = [s for s in K.walk_stmts(kernel.body) if isinstance(s, K.Assert)]
    assert [a.kind for a in asserts] == ["requires"]
    verdict = SDVOracle(timeout=60).check(kernel)
    assert _assert_lines(verdict, kernel) == {3}


def test_assertion_kind_in_json_and_sarif_and_fix_refuses() -> None:
    path = str(CONSTRUCTS / "18_assert_fail_bound.cu")
    runner = CliRunner()
    res = runner.invoke(app, ["check", "--format", "json", path])
    assert res.exit_code == 1
    doc = json.loads(res.stdout)
    assert [(f["kind"], f["line"]) for f in doc["findings"]] == [("assertion", 13)]
    assert not doc["races"]
    res = runner.invoke(app, ["check", "--format", "sarif", path])
    assert res.exit_code == 1
    results = json.loads(res.stdout)["runs"][0]["results"]
    assert [r["ruleId"] for r in results] == ["assertion"]
    res = runner.invoke(app, ["fix", path, "-o", "-"])
    assert res.exit_code == 1
    assert "cannot fix" in res.output and "assertion" in res.output


@pytest.mark.parametrize("name", ["18_constant_write.cu", "18_constant_write_atomic.cu"])
def test_constant_memory_store_is_bad_input(name: str) -> None:
    path = CONSTRUCTS / name
    line = constructs.expectation(path).constant_write
    with pytest.raises(KplError) as exc:
        load_kernel(str(path))
    assert exc.value.line == line and "constant memory" in str(exc.value)
    res = CliRunner().invoke(app, ["check", str(path)])
    assert res.exit_code == 2
    assert f"{name}:{line}:3: error: write to constant memory" in res.output
    assert "Traceback" not in res.output


def test_unmodelled_annotation_is_unknown_not_true() -> None:
    src = """//--blockDim=32 --gridDim=1
__device__ bool __non_temporal(bool);
__global__ void k(int *out) {
  __assert(__non_temporal(threadIdx.x == 0));
  out[threadIdx.x] = 0;
}
"""
    kernel = parse_kernel_text(src, "unk.cu")
    for oracle in (SDVOracle(timeout=60), DynamicOracle()):
        verdict = oracle.check(kernel)
        assert verdict.unknowns and not verdict.verified, oracle.name


def test_a_false_invariant_over_a_remainder_is_decided_promptly(tmp_path: Path) -> None:
    """A fuzzer mutant (10,000-mutant run, id 6839): 18_annotations_ok with the loop step
    1025, so ``__invariant(i % 256 == t)`` is false.  Two Houdini candidate queries over the
    remainder ran into the 20 s query limit each (41 s in all); bounded, the undecided
    candidate is dropped alone and the failed invariant is still reported."""
    src = (CONSTRUCTS / "18_annotations_ok.cu").read_text()
    loop = "__invariant(i % 256 == t), i < n; i += 256)"
    assert src.count(loop) == 1
    path = tmp_path / "k.cu"
    path.write_text(src.replace(loop, loop.replace("i += 256", "i += 1025")))
    for header in CONSTRUCTS.glob("*.h"):
        (tmp_path / header.name).write_text(header.read_text())
    kernel = load_kernel(str(path))
    verdict = SDVOracle(timeout=30).check(kernel)
    assert "loop invariant might not hold" in " ".join(f.message for f in verdict.findings)
    assert verdict.seconds < 20


# --------------------------------------------------------------------------- issue 28, item 3

_ROW = """//--blockDim=64 --gridDim=1
__global__ void k(float *out, int n) {{
  __shared__ float tile[128];
  float *row = tile + 64;
  for (int i = 0; __invariant({spec}), i < n; i++) {{
    row[threadIdx.x] = tile[threadIdx.x + 64] + i;
  }}
  __syncthreads();
  out[threadIdx.x] = row[(threadIdx.x + 1) % 64];
}}
"""


def _sdv(text: str) -> object:
    return SDVOracle(timeout=60).check(parse_kernel_text(text))


def _holds(text: str) -> bool:
    v = _sdv(text)
    assert not v.unknowns, v.unknowns  # type: ignore[attr-defined]
    return bool(v.verified)  # type: ignore[attr-defined]


@pytest.mark.parametrize("kind", ["write", "read"])
def test_access_implies_on_a_pointer_into_an_array(kind: str) -> None:
    """``__write_implies(row, e)`` with ``row = tile + 64``: the pointer names the array,
    and ``__write_offset_bytes(row)`` is, as GPUVerify defines it, the offset in the object
    ``row`` points into (``tile``), not from where ``row`` points (it was, which made the
    SDK convolution kernels fail their own invariants).  Failing twin: the offset from
    ``row``."""
    spec = (f"__{kind}_implies(row, __{kind}_offset_bytes(row) / sizeof(float) == "
            "threadIdx.x{off})")
    assert _holds(_ROW.format(spec=spec.format(off=" + 64")))
    assert not _holds(_ROW.format(spec=spec.format(off="")))
    # the same through the array itself
    whole = (f"__{kind}_implies(tile, __{kind}_offset_bytes(tile) / sizeof(float) == "
             "threadIdx.x + 64)")
    assert _holds(_ROW.format(spec=whole))


def test_function_wide_invariant_is_every_loops_invariant() -> None:
    text = ("//--blockDim=64 --gridDim=1\n__global__ void k(int *out, int n) {{\n"
            "  __shared__ int s[64];\n  int j = 0;\n  __function_wide_invariant({cond});\n"
            "  for (int i = 0; i < n; i++) {{ s[threadIdx.x] = i; j = j + 1; }}\n"
            "  for (int i = 0; i < n; i++) {{ s[threadIdx.x] += i; j = j + {step}; }}\n"
            "  out[threadIdx.x] = s[threadIdx.x];\n}}\n")
    assert _holds(text.format(cond="__uniform_int(j)", step="1"))
    # the second loop breaks it: a finding at the annotation's line, once
    v = _sdv(text.format(cond="__uniform_int(j)", step="(int)threadIdx.x"))
    assert [f.kind for f in v.findings] == ["assertion"]  # type: ignore[attr-defined]
    # written at the end of its function (GPUVerify's place for it): still every loop's,
    # the loops before it included; its failing twin breaks in the first loop
    def late(cond: str) -> str:
        return text.format(cond=cond, step="1").replace(
            f"  __function_wide_invariant({cond});\n", "").replace(
            "  out[threadIdx.x]", f"  __function_wide_invariant({cond});\n  out[threadIdx.x]")
    assert _holds(late("j >= 0"))
    v = _sdv(late("j < 1"))
    assert v.findings and {f.kind for f in v.findings} == {"assertion"}  # type: ignore[attr-defined]
    # naming a variable declared after a loop: unknown at that loop, never assumed
    after = late("j >= 0").replace("  __function_wide_invariant(j >= 0);\n",
                                   "  int m = j;\n  __function_wide_invariant(m >= 0);\n")
    v = _sdv(after)
    assert v.unknowns and not v.verified  # type: ignore[attr-defined]


_PAIR = """//--blockDim=64 --gridDim=1
__device__ bool __all(bool);
__global__ void k(int *out) {{
  __assert({spec});
  out[threadIdx.x] = 1;
}}
"""


@pytest.mark.parametrize("ok, bad", [
    ("__all(threadIdx.x < 64)", "__all(threadIdx.x < 63)"),
    ("__at_most_one(threadIdx.x == 5)", "__at_most_one(threadIdx.x < 2)"),
    ("__ptr_offset_bytes(out + 3) == 12", "__ptr_offset_bytes(out + 3) == 3"),
])
def test_two_thread_and_pointer_annotations(ok: str, bad: str) -> None:
    assert _holds(_PAIR.format(spec=ok))
    assert not _holds(_PAIR.format(spec=bad))


def test_all_of_our_headers_is_still_the_warp_vote() -> None:
    """Without the kernel's own ``__all(bool)`` declaration, in a file not written for
    GPUVerify (no flags line), ``__all`` is the warp vote (a fresh value), not the
    annotation: the assertion on it is not proved.  With GPUVerify's flags line it is
    GPUVerify's (as GPUVerify reads such a file), said in a note."""
    text = _PAIR.format(spec="__all(threadIdx.x < 64)").replace("__device__ bool __all(bool);\n", "")
    plain = text.replace("//--blockDim=64 --gridDim=1\n", "")
    assert not SDVOracle().check(parse_kernel_text(plain, block_dim=64, grid_dim=1)).verified
    assert SDVOracle().check(parse_kernel_text(text)).verified


def test_ptr_base_is_refused_not_true() -> None:
    """``__ptr_base`` is not modelled: compared with an array it is bad input naming the
    comparison (exit 2), never a silent pass."""
    with pytest.raises(KplError):
        parse_kernel_text(_PAIR.format(spec="__ptr_base(out) == out"))


def test_one_message_per_unknown_annotation() -> None:
    """An unmodelled annotation in a loop invariant is checked at loop entry and latch: one
    unknown at its line, not one per check."""
    text = _ROW.format(spec="__non_temporal(i >= 0)").replace(
        "__global__", "__device__ bool __non_temporal(bool);\n__global__")
    v = _sdv(text)
    assert len(v.unknowns) == 1  # type: ignore[attr-defined]
