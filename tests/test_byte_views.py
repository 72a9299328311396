"""The byte-range memory model: accesses through pointer casts (``(unsigned char *)words``,
``((float4 *)floats)[t]``, pitched rows ``(T *)((char *)base + y * pitch)``, ``uchar4`` and
``short2`` views) are compared as byte ranges by both oracles.

Each racy kernel of tests/kernels/constructs/12_*_racy*.cu names its race lines in its
``// autosync: races=A-B`` header; its ``_ok`` twin must verify.  Before the byte model the
casts were dropped and ``12_bytes_racy.cu`` (a byte store into another thread's word)
verified under both oracles.  The differential test asserts that ``sdv`` and ``dynamic``
agree on every kernel whose race ``dynamic`` can reach in the blocks it runs.  The
``04_structs_*_anon`` pair: an anonymous ``typedef struct``, different fields of one element
do not race, the same field does.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from kpl.frontend import load_kernels
from kpl.labels import LabelTree
from oracle.base import Verdict
from oracle.dynamic import DynamicOracle
from oracle.sdv import SDVOracle

KERNELS = Path(__file__).resolve().parent / "kernels" / "constructs"
FILES = sorted([p.name for p in KERNELS.glob("12_*.cu")] + [p.name for p in KERNELS.glob("04_structs_*_anon.cu")])
#: racy kernels whose race needs blocks beyond the two that ``dynamic`` runs
DYNAMIC_OUT_OF_REACH = {"12_pitch_racy.cu"}


def _expected(name: str) -> set[tuple[int, int]]:
    m = re.search(r"// autosync: races=(\d+)-(\d+)", (KERNELS / name).read_text())
    return {(int(m.group(1)), int(m.group(2)))} if m else set()


def _race_lines(path: Path, verdict: Verdict) -> set[tuple[int, int]]:
    kernel = load_kernels(str(path))[0]
    tree = LabelTree(kernel)
    out = set()
    for r in verdict.races:
        a, b = tree.line(r.first), tree.line(r.second)
        assert a is not None and b is not None
        out.add((min(a, b), max(a, b)))
    return out


def _check(oracle: SDVOracle | DynamicOracle, name: str) -> tuple[Verdict, set[tuple[int, int]]]:
    path = KERNELS / name
    (kernel,) = load_kernels(str(path))
    verdict = oracle.check(kernel)
    assert not verdict.unknowns, verdict.unknowns
    return verdict, _race_lines(path, verdict)


def test_the_kernels_are_there() -> None:
    assert {"12_bytes_racy.cu", "12_bytes_ok.cu", "12_pitch_racy.cu", "12_float4_racy.cu",
            "12_short2_racy.cu", "12_uchar4_racy.cu"} <= set(FILES)


@pytest.mark.parametrize("name", FILES)
def test_sdv_finds_exactly_the_byte_overlaps(name: str) -> None:
    _, lines = _check(SDVOracle(), name)
    assert lines == _expected(name)


@pytest.mark.parametrize("name", FILES)
def test_dynamic_agrees_with_sdv(name: str) -> None:
    """Differential: the concrete run finds the same race lines as sdv (or none, for the
    race-free twins)."""
    _, dyn = _check(DynamicOracle(), name)
    if name in DYNAMIC_OUT_OF_REACH:
        assert dyn == set()  # the race is between blocks 2 and 4; dynamic runs 0 and 1
        return
    _, sdv = _check(SDVOracle(), name)
    assert dyn == sdv == _expected(name)


def test_byte_store_into_a_word_races_with_its_owner() -> None:
    """The issue's kernel: thread t's byte store b[t] lies in word t / 4 of thread t / 4."""
    verdict, lines = _check(SDVOracle(), "12_bytes_racy.cu")
    assert lines == {(13, 14)}
    w = verdict.races[0].witness
    assert w is not None
    t1, t2 = w.thread1[0], w.thread2[0]
    assert t1 == t2 // 4 or t2 == t1 // 4
