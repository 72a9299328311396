"""Our own kernels in the launch shapes of issue 27 (tests/kernels/launch/), each with a racy
twin: a 2-D tiled stencil launched with dim3, a 1-D grid-stride loop, a kernel whose
race-freedom rests on the grid its host function computes, and one kernel launched with two
block shapes.  Each is checked under the launches its own host code makes."""

from __future__ import annotations

import functools
import json
from pathlib import Path

from typer.testing import CliRunner

from autosync.commands.cli import app

DIR = "tests/kernels/launch"


@functools.cache  # the stencil's and the grid-stride loop's checks serve several tests
def _check(name: str, *extra: str) -> tuple[dict, int]:
    res = CliRunner().invoke(app, ["check", f"{DIR}/{name}", "--format", "json", "--no-cache", *extra])
    return json.loads(res.stdout), res.exit_code


def test_stencil_is_checked_as_2d() -> None:
    """The dim3(16, 16) launch makes the tile a 16 x 16 square: no race on it."""
    doc, _ = _check("stencil2d_ok.cu")
    assert doc["launch"]["blockDim"] == [16, 16, 1]
    assert doc["launch"]["source"] == f"host launch at {DIR}/stencil2d_ok.cu:28"
    assert doc["launch"]["assumptions"] == ["gridDim.x == (w + 16 - 1) / 16", "gridDim.y == (h + 16 - 1) / 16"]
    assert [r for r in doc["races"] if r["array"] == "tile"] == []


def test_stencil_racy_twin_races_between_rows() -> None:
    """Without the barrier the tile races, and between two ROWS of the block (threadIdx.y
    differs): a race only a 2-D check can find."""
    doc, code = _check("stencil2d_racy.cu")
    assert code == 1
    tile = [r for r in doc["races"] if r["array"] == "tile"]
    assert any(r["witness"]["thread1"][1] != r["witness"]["thread2"][1] for r in tile), tile


def test_stencil_verifies() -> None:
    """Every race query decided, out[y * w + x] included: two threads' row-major indices
    differ in another row or in another column of one row (oracle.sdv.defined)."""
    doc, code = _check("stencil2d_ok.cu")
    assert code == 0, doc["races"]
    assert doc["unknowns"] == []


def test_grid_stride_loop_verifies() -> None:
    """For every grid (gridDim.x symbolic, blockDim.x the host's 256): Houdini keeps the
    stride invariant i % (256 * gridDim.x) == i0 % (256 * gridDim.x) (oracle.sdv.strides)."""
    doc, code = _check("gridstride_ok.cu")
    assert code == 0, doc["races"]
    assert doc["unknowns"] == []


def test_grid_stride_by_one_block_races_between_blocks() -> None:
    """The racy twin whose stride is one block, under the same symbolic grid: a race between
    two blocks, with a witness that replays -- each thread's element is its first one plus a
    whole number of strides (256), below n -- in small numbers (oracle.sdv.witness: n and
    gridDim.x up to 1024, not the solver's first pick near 2^31)."""
    doc, code = _check("gridstride_short_racy.cu")
    assert code == 1
    (race,) = doc["races"]
    w = race["witness"]
    assert race["array"] == "d" and race["class"] == "inter-block" and w["block1"] != w["block2"]
    assert w["launch"]["blockDim"] == [256, 1, 1]
    for t, b in (("thread1", "block1"), ("thread2", "block2")):
        first = w[b][0] * 256 + w[t][0]
        assert first <= w["index"] < w["params"]["n"] and (w["index"] - first) % 256 == 0
        assert w[b][0] < w["launch"]["gridDim"][0]
    assert 0 < w["params"]["n"] <= 1024 and w["launch"]["gridDim"][0] <= 1024


def test_grid_stride_loop_launch_is_symbolic_grid() -> None:
    """``cap(…)`` of a runtime value: the grid is symbolic, the block the host's 256."""
    doc, _ = _check("gridstride_ok.cu")
    assert doc["launch"]["blockDim"] == [256, 1, 1] and doc["launch"]["gridDim"] == [None, 1, 1]


def test_grid_stride_racy_twin() -> None:
    doc, code = _check("gridstride_racy.cu")
    assert code == 1 and [r["array"] for r in doc["races"]] == ["out"]


def test_relation_from_the_host_function_proves_the_slices() -> None:
    """gridDim.x == slices (the host launches one block per slice): blockIdx.x % slices is
    blockIdx.x, so no two blocks share a slice."""
    doc, code = _check("slices_ok.cu")
    assert doc["launch"]["assumptions"] == ["gridDim.x == slices"]
    assert code == 0, doc


def test_relation_racy_twin_one_block_too_many() -> None:
    doc, code = _check("slices_racy.cu")
    assert doc["launch"]["assumptions"] == ["gridDim.x == slices + 1"]
    assert code == 1
    (race,) = doc["races"]
    w = race["witness"]
    assert race["array"] == "a" and w["block1"] != w["block2"]
    assert w["launch"]["gridDim"][0] == max(w["block1"][0], w["block2"][0]) + 1  # the extra block meets block 0


def test_relation_is_needed(tmp_path: Path) -> None:
    """The same kernel without its host function (a symbolic grid) is racy: the relation, not
    luck, proves slices_ok.cu."""
    text = Path(DIR, "slices_ok.cu").read_text()
    f = tmp_path / "slices.cu"
    f.write_text(text[:text.index("void scale_all")])
    res = CliRunner().invoke(app, ["check", str(f), "--format", "json", "--no-cache"])
    doc = json.loads(res.stdout)
    assert doc["launch"]["gridDim"] == [None, 1, 1] and res.exit_code == 1


def test_two_launches_both_checked() -> None:
    doc, code = _check("two_shapes_ok.cu")
    assert [k["launch"]["blockDim"] for k in doc["kernels"]] == [[32, 8, 1], [16, 16, 1]]
    assert code == 0 and all(k["verified"] for k in doc["kernels"])


def test_two_launches_racy_twin_races_under_one() -> None:
    doc, code = _check("two_shapes_racy.cu")
    assert code == 1
    assert [(k["launch"]["blockDim"], k["verified"]) for k in doc["kernels"]] == [([32, 8, 1], True),
                                                                                 ([64, 4, 1], False)]
