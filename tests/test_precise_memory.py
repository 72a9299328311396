"""Issue 12, items 3-6: benign writes, consistent reads, distinct atomic results, and the
clock ``sum`` kernels -- judged by BOTH oracles (``sdv`` and ``dynamic``), each precision
gain with a racy twin that must still race.  The kernels are in tests/kernels/constructs/
(13_*, 14_*, 15_*) and sdk_kernels/ (sum0, sum1)."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from autosync.commands.cli import app
from kpl.frontend import load_kernels
from oracle.dynamic import DynamicOracle
from oracle.sdv import SDVOracle

ROOT = Path(__file__).resolve().parent.parent
C = ROOT / "tests" / "kernels" / "constructs"


def _kernel(path: Path):  # type: ignore[no-untyped-def]
    return load_kernels(str(path), path.read_text())[0]


def _lines(path: Path, verdict) -> set[tuple[int, int]]:  # type: ignore[no-untyped-def]
    from kpl.labels import LabelTree

    tree = LabelTree(_kernel(path))
    return {(tree.line(r.first), tree.line(r.second)) for r in verdict.races}


def both(path: Path, **options: object) -> tuple[object, object]:
    k = _kernel(path)
    return SDVOracle(**options).check(k), DynamicOracle(**options).check(k)


# ---------------------------------------------------------------- item 3: benign writes


def test_item3_benign_store_verifies_in_both_oracles() -> None:
    sdv, dyn = both(C / "13_benign_ok.cu")
    assert sdv.verified and dyn.verified  # type: ignore[attr-defined]


def test_item3_no_benign_reports_the_benign_store_in_both_oracles() -> None:
    path = C / "13_benign_ok.cu"
    sdv, dyn = both(path, benign=False)
    assert _lines(path, sdv) == _lines(path, dyn) == {(18, 18)}


@pytest.mark.parametrize("name", ["13_benign_racy.cu", "13_benign_racy_some.cu"])
def test_item3_different_values_still_race_in_both_oracles(name: str) -> None:
    path = C / name
    sdv, dyn = both(path)
    assert (18, 18) in _lines(path, sdv) and (18, 18) in _lines(path, dyn)


def test_item3_no_benign_flag_on_the_command_line() -> None:
    path = str(C / "13_benign_ok.cu")
    for oracle in ("sdv", "dynamic"):
        assert CliRunner().invoke(app, ["check", path, "--oracle", oracle]).exit_code == 0
        assert CliRunner().invoke(app, ["check", path, "--oracle", oracle,
                                        "--no-benign"]).exit_code == 1


def test_item3_read_write_pairs_are_never_benign() -> None:
    # 15_atomics_racy_counter: `int j = count; count = j + 1;` -- the read/write pair races
    # even though a thread may store back what another read
    path = C / "15_atomics_racy_counter.cu"
    sdv, dyn = both(path)
    assert (17, 18) in _lines(path, sdv) and (17, 18) in _lines(path, dyn)


# ---------------------------------------------------------------- item 4: consistent reads


def test_item4_consistent_reads_verify_in_both_oracles() -> None:
    sdv, dyn = both(C / "14_consistent_ok.cu")
    assert sdv.verified and dyn.verified  # type: ignore[attr-defined]


def test_item4_racy_twin_races_in_both_oracles() -> None:
    path = C / "14_consistent_racy.cu"
    k = _kernel(path)
    sdv = SDVOracle().check(k)
    # the race needs a negative diagonal weight: give the concrete run one
    w = {i: (-1 if i % 33 == 0 else 5) for i in range(32 * 32)}
    dyn = DynamicOracle(inputs={"w": w}).check(k)
    assert (16, 17) in _lines(path, sdv) and (16, 17) in _lines(path, dyn)


# ---------------------------------------------------------------- item 5: atomics


def test_item5_distinct_atomic_slots_verify_in_both_oracles() -> None:
    sdv, dyn = both(C / "15_atomics_ok.cu")
    assert sdv.verified and dyn.verified  # type: ignore[attr-defined]


@pytest.mark.parametrize("name,pair", [("15_atomics_racy_zero.cu", (22, 22)),
                                        ("15_atomics_racy_half.cu", (18, 18))])
def test_item5_racy_twins_race_in_both_oracles(name: str, pair: tuple[int, int]) -> None:
    path = C / name
    sdv, dyn = both(path)
    assert pair in _lines(path, sdv) and pair in _lines(path, dyn)


def test_item5_atomics_in_a_loop_are_not_assumed_distinct() -> None:
    path = C / "15_atomics_racy_loop.cu"
    sdv = SDVOracle().check(_kernel(path))
    assert (17, 17) in _lines(path, sdv)


# ---------------------------------------------------------------- item 6: sum kernels


@pytest.mark.parametrize("name,line", [("sum0.cu", 22), ("sum1.cu", 21)])
def test_item6_sum_kernels_verify_and_race_with_no_benign(name: str, line: int) -> None:
    path = ROOT / "sdk_kernels" / name
    sdv, dyn = both(path)
    assert sdv.verified and dyn.verified  # type: ignore[attr-defined]
    sdv, dyn = both(path, benign=False)
    assert _lines(path, sdv) == _lines(path, dyn) == {(line, line)}
