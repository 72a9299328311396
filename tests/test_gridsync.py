"""Cooperative groups' grid-wide barrier (``grid_group::sync``): parsed as a ``Barrier`` of
kind ``GRID``, ordering accesses across blocks in sdv, kept as written by ``fix``."""

from __future__ import annotations

from pathlib import Path

from autosync.algorithm.synthesis import FIXED, synthesize
from autosync.render.patch import render_patch
from kpl import ast as K
from kpl.frontend import load_kernel, parse_kernel_text
from kpl.placement import BarrierKind
from kpl.transform import strip_barriers
from oracle.dynamic import DynamicOracle
from oracle.named import NamedBarrierOracle
from oracle.sdv import SDVOracle

CONSTRUCTS = Path(__file__).parent / "kernels" / "constructs"


def _grid_barriers(kernel: K.Kernel) -> list[K.Barrier]:
    return [s for s in K.walk_stmts(kernel.body)
            if isinstance(s, K.Barrier) and s.kind is BarrierKind.GRID]


def test_all_spellings_parse_as_grid_barriers() -> None:
    k = load_kernel(str(CONSTRUCTS / "08_cg_ok_grid2.cu"))
    assert len(_grid_barriers(k)) == 2  # cg::this_grid().sync() and cg::sync(g)
    stripped, anchors = strip_barriers(k)
    assert len(_grid_barriers(stripped)) == 2 and len(anchors) == 1  # only __syncthreads


def test_fix_keeps_the_grid_barrier_and_adds_only_block_barriers() -> None:
    src = (CONSTRUCTS / "08_cg_ok_grid2.cu").read_text().replace("  __syncthreads();\n", "")
    k = parse_kernel_text(src, "k.cu", block_dim=(64, 1, 1), grid_dim=(4, 1, 1))
    assert not SDVOracle().check(k).verified
    res = synthesize(k, SDVOracle())
    assert res.status == FIXED
    assert [a.kind for a in res.placement] == [BarrierKind.SYNCTHREADS]
    patched = render_patch(k, res.placement)
    assert "cg::this_grid().sync();" in patched and "cg::sync(g);" in patched
    assert patched.count("__syncthreads();") == 1
    again = parse_kernel_text(patched, "p.cu", block_dim=(64, 1, 1), grid_dim=(4, 1, 1))
    assert len(_grid_barriers(again)) == 2 and SDVOracle().check(again).verified


def test_grid_barrier_taken_by_one_block_is_divergence() -> None:
    k = load_kernel(str(CONSTRUCTS.parent / "grid" / "cg_grid_divergent.cu"))
    v = SDVOracle().check(k)
    assert [d.label for d in v.divergences] == [b.label for b in _grid_barriers(k)]
    assert not v.verified and not v.races


LOOP = ("#include <cooperative_groups.h>\nnamespace cg = cooperative_groups;\n"
        "__global__ void k(int *a, int n) {\n  cg::grid_group g = cg::this_grid();\n"
        "  for (int i = 0; i < BOUND; ++i) {\n    a[blockIdx.x * 32 + threadIdx.x] = i;\n"
        "    g.sync();\n    a[((blockIdx.x + 1) % 4) * 32 + threadIdx.x] += 1;\n"
        "    g.sync();\n  }\n}\n")


def _loop(bound: str, syncs: int = 2) -> K.Kernel:
    src = LOOP.replace("BOUND", bound)
    if syncs == 1:
        src = src.replace("    g.sync();\n  }", "  }")
    return parse_kernel_text(src, "k.cu", block_dim=(32, 1, 1), grid_dim=(4, 1, 1))


def test_grid_barriers_in_an_abstracted_loop_order_the_blocks() -> None:
    """A loop of unknown trip count holding grid barriers is abstracted in the cross-block
    run as one block's barrier loop is (issue 37): the blocks' iterations are ordered by the
    grid epochs.  (This used to answer "unknown".)"""
    assert SDVOracle().check(_loop("n")).verified
    racy = SDVOracle().check(_loop("n", syncs=1))  # the write of round i+1 meets the += of round i
    assert not racy.unknowns and racy.races and all(r.cross_block for r in racy.races)


def test_the_first_grid_barrier_of_a_round_is_needed_too() -> None:
    """Without the barrier between a round's two accesses, block b's write and block b - 1's
    ``+=`` of the same round race: the abstracted loop runs both blocks in one round."""
    k = _loop("n")
    first = next(s for s in K.walk_stmts(k.body) if isinstance(s, K.Barrier))
    src = LOOP.replace("BOUND", "n").replace("    g.sync();\n    a[((", "    a[((", 1)
    racy = SDVOracle().check(parse_kernel_text(src, "k.cu", block_dim=(32, 1, 1), grid_dim=(4, 1, 1)))
    assert first.kind is BarrierKind.GRID and racy.races and not racy.unknowns
    guarded = LOOP.replace("BOUND", "n").replace("    g.sync();\n    a[((", "    if (blockIdx.x == 0)\n"
                                                 "      g.sync();\n    a[((", 1)
    v = SDVOracle().check(parse_kernel_text(guarded, "k.cu", block_dim=(32, 1, 1), grid_dim=(4, 1, 1)))
    assert v.divergences and not v.unknowns  # only block 0 syncs: the grid deadlocks


def test_a_grid_barrier_in_a_loop_whose_rounds_differ_by_block_diverges() -> None:
    v = SDVOracle().check(_loop("n + (int)blockIdx.x"))
    assert v.divergences and not v.unknowns


def test_dynamic_and_named_do_not_pass_a_grid_barrier() -> None:
    k = load_kernel(str(CONSTRUCTS / "08_cg_ok_grid.cu"))
    for oracle in (DynamicOracle(), NamedBarrierOracle()):
        v = oracle.check(k)
        assert not v.verified and any("grid" in u.reason for u in v.unknowns), oracle
