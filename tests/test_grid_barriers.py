"""Races between blocks fixed with a grid barrier (issue 37, items 1, 2 and 4).

``fix`` offers a grid barrier (cooperative groups' ``this_grid().sync()``, a third barrier
kind of the synthesis, cost GC·C(ℓ)) only where a grid barrier is legal: the host code
launches the kernel cooperatively (``cudaLaunchCooperativeKernel``, ``cudaLaunchKernelEx``
with the cooperative attribute), the kernel already calls one, or ``--grid-sync``.  Otherwise
the race between blocks stays (exit 1) and the message says what would fix it.  The patch
adds ``#include <cooperative_groups.h>`` once and a namespace alias no name of the file
spells; OpenCL C keeps its "no barrier" message in its own words.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from autosync.commands.cli import app
from kpl import ast as K
from kpl.frontend import load_kernel, load_kernels, parse_kernel_text
from kpl.placement import BarrierKind
from oracle.sdv import SDVOracle

KERNELS = Path(__file__).resolve().parent / "kernels" / "grid"
RACY_OK = [("only_between_racy.cu", "only_between_ok.cu"), ("mixed_racy.cu", "mixed_ok.cu"),
           ("loop_racy.cu", "loop_ok.cu"), ("between_racy.cu", "between_ok.cu")]


def _fix(tmp_path: Path, name: str, *args: str) -> tuple[int, str, str]:
    f = tmp_path / name
    shutil.copy(KERNELS / name, f)
    res = CliRunner().invoke(app, ["fix", str(f), *args])
    return res.exit_code, res.stdout, f.read_text()


def _kinds(text: str, name: str = "k.cu") -> list[BarrierKind]:
    k = parse_kernel_text(text, name, block_dim=(64, 1, 1), grid_dim=(4, 1, 1))
    return [s.kind for s in K.walk_stmts(k.body) if isinstance(s, K.Barrier)]


@pytest.mark.parametrize(("racy", "ok"), RACY_OK)
def test_twins_check(racy: str, ok: str) -> None:
    assert CliRunner().invoke(app, ["check", str(KERNELS / racy)]).exit_code == 1
    assert CliRunner().invoke(app, ["check", str(KERNELS / ok)]).exit_code == 0


def test_without_a_cooperative_launch_the_race_stays_and_says_how(tmp_path: Path) -> None:
    code, out, text = _fix(tmp_path, "only_between_racy.cu")
    assert code == 1 and text == (KERNELS / "only_between_racy.cu").read_text()
    assert "race between blocks " in out and "on 'slots': no block barrier can order it" in out
    assert "launch the kernel cooperatively" in out and "--grid-sync" in out


def test_grid_sync_inserts_one_grid_barrier_with_include_and_alias(tmp_path: Path) -> None:
    code, out, text = _fix(tmp_path, "only_between_racy.cu", "--grid-sync")
    assert code == 0, out
    assert text.count("#include <cooperative_groups.h>") == 1
    assert "namespace autosync_cg = cooperative_groups;" in text
    assert text.count("autosync_cg::this_grid().sync();") == 1
    assert text.splitlines()[:2] == ["//xfail:NOT_ALL_VERIFIED", "//--blockDim=64 --gridDim=4"]  # header kept
    assert "launched cooperatively" in out and "resident on the GPU at once" in out
    assert text.index("slots[b * 64u + t] = ") < text.index("this_grid().sync()") < text.index("out[b * 64u")
    assert SDVOracle().check(load_kernel(str(tmp_path / "only_between_racy.cu"))).verified


def test_a_race_inside_and_one_between_blocks_get_a_block_and_a_grid_barrier(tmp_path: Path) -> None:
    code, out, text = _fix(tmp_path, "mixed_racy.cu", "--grid-sync", "--format", "json")
    assert code == 0
    doc = json.loads(out)
    assert sorted(b["text"] for b in doc["barriers"]) == ["__syncthreads();",
                                                          "autosync_cg::this_grid().sync();"]
    assert _kinds(text) == [BarrierKind.SYNCTHREADS, BarrierKind.GRID]


def test_a_race_inside_and_between_blocks_at_one_place_gets_one_grid_barrier(tmp_path: Path) -> None:
    code, _, text = _fix(tmp_path, "between_racy.cu", "--grid-sync")
    assert code == 0 and _kinds(text) == [BarrierKind.GRID]  # not a block barrier beside it
    code, out, text = _fix(tmp_path, "between_racy.cu")
    assert code == 1 and _kinds(text) == [BarrierKind.SYNCTHREADS] and "--grid-sync" in out


def test_grid_barriers_in_a_loop(tmp_path: Path) -> None:
    code, _, text = _fix(tmp_path, "loop_racy.cu", "--grid-sync")
    assert code == 0 and _kinds(text) == [BarrierKind.GRID, BarrierKind.GRID]
    body = text[text.index("for (int r"):]
    assert body.count("this_grid().sync();") == 2


@pytest.mark.parametrize("name", ["launched_cooperatively.cu", "launched_ex.cu"])
def test_a_cooperative_launch_needs_no_flag(tmp_path: Path, name: str) -> None:
    [kernel] = load_kernels(str(KERNELS / name))
    assert kernel.host_launches and all(h.cooperative for h in kernel.host_launches)
    code, out, text = _fix(tmp_path, name)
    assert code == 0, out
    assert text.count("this_grid().sync();") == 1
    assert text.count("#include <cooperative_groups.h>") == 1
    assert text.index("#include <cuda_runtime.h>") < text.index("#include <cooperative_groups.h>")


def test_a_plain_launch_is_not_cooperative(tmp_path: Path) -> None:
    [kernel] = load_kernels(str(KERNELS / "launched_plainly.cu"))
    assert kernel.host_launches and not any(h.cooperative for h in kernel.host_launches)
    code, out, _ = _fix(tmp_path, "launched_plainly.cu")
    assert code == 1 and "--grid-sync" in out


def test_a_kernel_with_a_grid_barrier_gets_more(tmp_path: Path) -> None:
    """A grid barrier already written is legal only under a cooperative launch: fix may add
    another without --grid-sync, and does not include cooperative_groups.h a second time."""
    src = (KERNELS / "only_between_ok.cu").read_text().replace(
        "  out[b * 64u + t] = slots", "  out[b * 64u + t] = slots[b * 64u + t] + slots")
    src = src.replace("  coop::this_grid().sync();\n", "  coop::this_grid().sync();\n"
                      "  slots[b * 64u + t] = 0;\n")
    f = tmp_path / "k.cu"
    f.write_text(src)
    res = CliRunner().invoke(app, ["fix", str(f)])
    assert res.exit_code == 0, res.stdout
    text = f.read_text()
    assert text.count("#include <cooperative_groups.h>") == 1
    assert _kinds(text).count(BarrierKind.GRID) == 2


def test_the_alias_does_not_collide(tmp_path: Path) -> None:
    src = (KERNELS / "only_between_racy.cu").read_text().replace(
        "unsigned b = blockIdx.x;", "unsigned autosync_cg = blockIdx.x, b = autosync_cg;")
    f = tmp_path / "k.cu"
    f.write_text(src)
    assert CliRunner().invoke(app, ["fix", str(f), "--grid-sync"]).exit_code == 0
    text = f.read_text()
    assert "namespace autosync_cg_2 = cooperative_groups;" in text
    assert "autosync_cg_2::this_grid().sync();" in text


def test_opencl_keeps_no_barrier_in_its_words(tmp_path: Path) -> None:
    code, out, text = _fix(tmp_path, "between_groups_racy.cl", "--grid-sync")
    assert code == 1 and text == (KERNELS / "between_groups_racy.cl").read_text()
    assert "race between work-groups " in out
    assert "no barrier can order it (OpenCL C has no barrier across work-groups)" in out
    assert "--grid-sync" not in out and "blocks" not in out.split("race between work-groups")[1]


def test_a_grid_barrier_orders_threads_of_one_block_and_diverges_for_any_thread() -> None:
    ordered = load_kernel(str(KERNELS / "between_ok.cu"))  # the neighbour inside a block too
    assert SDVOracle().check(ordered).verified
    src = (KERNELS / "only_between_ok.cu").read_text().replace(
        "  coop::this_grid().sync();", "  if (t < 32u)\n    coop::this_grid().sync();")
    k = parse_kernel_text(src, "k.cu", block_dim=(64, 1, 1), grid_dim=(4, 1, 1))
    v = SDVOracle().check(k)
    grid = [s.label for s in K.walk_stmts(k.body) if isinstance(s, K.Barrier)]
    assert [d.label for d in v.divergences] == grid  # half a block skips it: divergence


TWICE = """\
#include <cuda_runtime.h>
__global__ void pass_on(int *slots, int *out) {
  unsigned b = blockIdx.x;
  unsigned t = threadIdx.x;
  slots[b * 64u + t] = (int)(b + t);
  out[b * 64u + t] = slots[((b + 1u) % gridDim.x) * 64u + t];
}

void run(int *slots, int *out) {
  void *args[] = {&slots, &out};
  cudaLaunchCooperativeKernel((void *)pass_on, dim3(4), dim3(64), args);
  cudaLaunchCooperativeKernel((void *)pass_on, dim3(2), dim3(64), args);
}
"""


def test_one_grid_barrier_serves_every_cooperative_launch(tmp_path: Path) -> None:
    """Two cooperative launches of different grids: the placement is verified under both, the
    grid barrier moved to the second launch's kernel with the others synthesis inserted."""
    f = tmp_path / "twice.cu"
    f.write_text(TWICE)
    res = CliRunner().invoke(app, ["fix", str(f)])
    code, out, text = res.exit_code, res.stdout, f.read_text()
    assert code == 0, out
    assert "one placement for its 2 launch configurations" in out
    assert text.count("this_grid().sync();") == 1
