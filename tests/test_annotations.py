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
__global__ void k(int *out) {
  __assert(__at_most_one(threadIdx.x == 0));
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
