"""Acceptance tests: the construct kernels of tests/kernels/constructs/ (real third-party
CUDA that AutoSync must parse, and memory-model cases it must judge soundly) get the
verdict their header asks for: exit 0 for a ``//pass`` kernel; exit 1 with every named
race pair for a racy one; an assertion failure at the named line; an error at a store to
``__constant__`` memory.  The expectations are read and judged by microbench/constructs.py
(the same code that prints the before/after table).

Kernels that AutoSync does not handle yet are listed in ``NOT_YET`` and marked
``xfail(strict=True)``: when one starts to pass it XPASSes, which fails the suite, and must
be taken off the list.  ``NOT_YET`` only ever shrinks.

Runs in-process through typer's CliRunner (no interpreter start per kernel).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from autosync.commands.cli import app

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "microbench"))

import constructs  # noqa: E402

# Kernels that do not get their expected verdict today (file names in
# tests/kernels/constructs/).  Remove a name as soon as its kernel passes.
NOT_YET: set[str] = set()

#: per-kernel limit handed to ``autosync check --timeout`` (exit 3 past it)
TIMEOUT_S = 20

KERNELS = constructs.kernel_files()


def _run(path: Path) -> constructs.Outcome:
    start = time.monotonic()
    result = CliRunner().invoke(app, constructs.check_args(path, TIMEOUT_S))
    return constructs.Outcome(result.exit_code, result.stdout, result.stderr, time.monotonic() - start)


def _param(path: Path) -> object:
    marks = [pytest.mark.xfail(strict=True, reason="construct not handled yet (NOT_YET)")] \
        if path.name in NOT_YET else []
    return pytest.param(path, id=path.name, marks=marks)


def test_not_yet_names_exist() -> None:
    assert NOT_YET <= {p.name for p in KERNELS}


def test_every_construct_has_ok_and_racy_kernels() -> None:
    by_construct: dict[str, set[bool]] = {}
    for p in KERNELS:
        by_construct.setdefault(constructs.construct_of(p), set()).add(constructs.expectation(p).racy)
    assert len(by_construct) == len(constructs.CONSTRUCTS)
    assert all(kinds == {True, False} for kinds in by_construct.values()), by_construct


def test_racy_headers_name_what_they_expect() -> None:
    for p in KERNELS:
        exp = constructs.expectation(p)
        named = bool(exp.races) + (exp.assert_fails is not None) + (exp.constant_write is not None)
        assert named == (1 if exp.racy else 0), p.name


@pytest.mark.parametrize("path", [_param(p) for p in KERNELS])
def test_construct_kernel_verdict(path: Path) -> None:
    judgement = constructs.judge(constructs.expectation(path), _run(path))
    assert judgement.as_expected, f"{judgement.column}: {judgement.why}"
