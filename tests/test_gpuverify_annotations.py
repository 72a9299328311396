"""GPUVerify's wider annotation language (issue 34): each class on a kernel of ours where
the annotation holds (``*_ok``: verified) and its twin where it fails or a race remains
(``*_bad``: a finding), through ``check``'s exit code and message."""

from __future__ import annotations

import os

import pytest
from typer.testing import CliRunner

from autosync.commands.cli import app

HERE = os.path.join(os.path.dirname(__file__), "kernels", "gpuverify_annotations")
#: the message each failing twin must print
BAD = {"noovfl_bad.cl": "assertion might not hold",
       "noovfl_predicate_bad.cu": "assertion might not hold",
       "old_bad.cu": "postcondition (__ensures) might not hold",
       "ite_mod_bad.cu": "assertion might not hold",
       "all_exclusive_bad.cl": "assertion might not hold",
       "uninterpreted_bad.cl": "assertion might not hold",
       "barrier_invariant_bad.cl": "barrier invariant might not hold",
       "vector_return_bad.cl": "postcondition (__ensures) might not hold",
       "fresh_bad.cl": "race between blocks on 'buf'",
       "global_ensures_bad.cl": "postcondition (__global_ensures) might not hold",
       "global_assert_bad.cl": "global assertion (__global_assert) might not hold",
       "enabled_bad.cu": "loop invariant might not hold",
       "header_assert_bad.cu": "loop invariant might not hold",
       "global_requires_bad.cl": "precondition (__global_requires) of the called function"}


def run_cli(args: list[str]) -> tuple[int, str]:
    res = CliRunner().invoke(app, args)
    return res.exit_code, res.output


@pytest.mark.parametrize("bad", sorted(BAD))
def test_annotation_class_holds_and_fails(bad: str) -> None:
    """The ``_ok`` kernel verifies; its ``_bad`` twin reports the failure, never passes."""
    ok = bad.replace("_bad", "_ok")
    code, out = run_cli(["check", os.path.join(HERE, ok)])
    assert code == 0 and "verified" in out, out
    code, out = run_cli(["check", os.path.join(HERE, bad)])
    assert code == 1 and BAD[bad] in out, out


def test_spec_frame_and_atomic_values_are_unknown(tmp_path: object) -> None:
    """``__writes_to`` (the frame of a GPUVerify specification function) is not modelled:
    "cannot verify" (exit 1), never a silent pass."""
    path = os.path.join(str(tmp_path), "spec.cl")
    with open(path, "w", encoding="utf-8") as fh:
        fh.write("//--local_size=16 --num_groups=1\n"
                 "void __spec_put(__global int *p) {\n  __writes_to(p);\n}\n"
                 "__kernel void go(__global int *a) {\n  __spec_put(a);\n}\n")
    code, out = run_cli(["check", path])
    assert code == 1 and "unsupported annotation '__writes_to'" in out, out


@pytest.mark.parametrize("bad, says", [
    ("global_assert_bad.cl", "a global annotation evaluated for a thread that does not run it"),
    ("enabled_bad.cu", "might not hold"), ("all_exclusive_bad.cl", "might not hold")])
def test_dynamic_oracle_reads_enabled_and_global_alike(bad: str, says: str) -> None:
    """The concrete run agrees: ``__enabled()`` of the partner is whether it runs the
    annotation; a global assertion false only for threads that skip it is "unknown" there
    (the run does not compute their values), never verified."""
    code, out = run_cli(["check", "--oracle", "dynamic", os.path.join(HERE, bad.replace("_bad", "_ok"))])
    assert code == 0, out
    code, out = run_cli(["check", "--oracle", "dynamic", os.path.join(HERE, bad)])
    assert code == 1 and says in out, out


def test_function_wide_candidate_is_never_checked(tmp_path: object) -> None:
    """``__function_wide_candidate_invariant(e)``: a candidate of every loop, used only if
    proved, never an error; the same condition as ``__function_wide_invariant`` is checked."""
    text = ("//--blockDim=32 --gridDim=1\n__global__ void k(int *out, int n) {{\n"
            "  int j = 0;\n  for (int i = 0; i < n; i++) {{ j = j + 1; }}\n"
            "  out[threadIdx.x] = j;\n  {name}(j < 1);\n}}\n")
    path = os.path.join(str(tmp_path), "wide.cu")
    for name, code in (("__function_wide_candidate_invariant", 0),
                       ("__function_wide_invariant", 1)):
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text.format(name=name))
        got, out = run_cli(["check", path])
        assert got == code, out
