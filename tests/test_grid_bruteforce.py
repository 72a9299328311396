"""Brute force against the MaxSAT optimum with three barrier kinds (issue 37, item 5).

For small kernels with races between blocks, every assignment of {none, ``__syncthreads()``,
grid barrier} to every placeable position is priced, and the assignments are checked by the
oracle in increasing cost until one verifies: its cost is the least of any verified
placement, and must be exactly the cost of what synthesis returns with grid barriers on
(RC2 and νZ, with and without the oracle-fact shortcut; warp barriers off, as the brute
force offers none: one warp is a block here).  The kernels cover a race only
between blocks, one inside and one between blocks (a block barrier plus a grid barrier,
never two grid barriers) and a grid barrier needed twice in a loop.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest

from autosync.algorithm.cost import DEFAULT_GRID_COST, CostModel
from autosync.algorithm.synthesis import FIXED, synthesize
from kpl.ast import Kernel
from kpl.frontend import parse_kernel_text
from kpl.labels import LabelTree
from kpl.placement import BarrierKind
from kpl.transform import insert_barriers
from oracle.sdv import SDVOracle

# block b writes its cell, then reads block b + 1's: a race only between blocks
BETWEEN = """
__global__ void between(int *cell, int *out) {
  cell[blockIdx.x * 32 + threadIdx.x] = threadIdx.x;
  out[blockIdx.x * 32 + threadIdx.x] = cell[((blockIdx.x + 1) % 4) * 32 + threadIdx.x];
}
"""

# a shared tile read in reverse (inside a block), then a row read from the next block
# (between blocks): one __syncthreads() and one grid barrier
MIXED = """
__global__ void mixed(int *row, int *out) {
  __shared__ int tile[32];
  tile[threadIdx.x] = row[blockIdx.x * 32 + threadIdx.x];
  row[blockIdx.x * 32 + threadIdx.x] = tile[31 - threadIdx.x];
  out[blockIdx.x * 32 + threadIdx.x] = row[((blockIdx.x + 1) % 4) * 32 + threadIdx.x];
}
"""

# rounds of a ring: inside a round and across rounds the blocks race -- two grid barriers
# in the loop
LOOP = """
__global__ void loop(int *cells) {
  for (int r = 0; r < 2; ++r) {
    int v = cells[((blockIdx.x + 1) % 4) * 32 + threadIdx.x];
    cells[blockIdx.x * 32 + threadIdx.x] = v + r;
  }
}
"""

KERNELS = {"between": BETWEEN, "mixed": MIXED, "loop": LOOP}
CHOICES = (None, BarrierKind.SYNCTHREADS, BarrierKind.GRID)
G = DEFAULT_GRID_COST
# the hand-derived optima: one grid barrier; a block barrier plus a grid barrier; two grid
# barriers in the loop (LC = 100)
BEST = {"between": G, "mixed": 1 + G, "loop": 200 * G}


def _kernel(name: str) -> Kernel:
    return parse_kernel_text(KERNELS[name], f"{name}.cu", block_dim=(32, 1, 1), grid_dim=(4, 1, 1))


def _brute_force(kernel: Kernel) -> tuple[Fraction, int]:
    """(least cost of a verified assignment, number of assignments the oracle checked)."""
    tree = LabelTree(kernel)
    costs = CostModel(tree, 100, Fraction(1, 2), grid=G)
    positions = [lab for lab in tree.labels() if tree.placeable(lab)]
    placements = [costs.mixed((lab, kind) for lab, kind in zip(positions, choice, strict=True)
                              if kind is not None)
                  for choice in itertools.product(CHOICES, repeat=len(positions))]
    placements.sort(key=lambda p: p.cost)
    oracle = SDVOracle()
    for checked, placement in enumerate(placements, 1):
        candidate, _ = insert_barriers(kernel, placement)
        verdict = oracle.check(candidate)
        assert not verdict.unknowns, verdict.unknowns
        if verdict.verified:
            return placement.cost, checked
    raise AssertionError("no placement verifies")


@pytest.mark.parametrize("name", sorted(KERNELS))
def test_maxsat_optimum_equals_brute_force_minimum(name: str) -> None:
    kernel = _kernel(name)
    best, checked = _brute_force(kernel)
    assert checked > 1
    assert best == BEST[name]
    for solver in ("rc2", "nuz"):
        for facts in (True, False):
            res = synthesize(kernel, SDVOracle(), solver=solver, use_facts=facts, grid_cost=G,
                             warp_cost=None)
            assert res.status == FIXED, res.reason
            assert res.cost == best, (solver, facts, res.placement)
            assert res.kernel is not None and SDVOracle().check(res.kernel).verified
            grids = [a for a in res.placement if a.kind is BarrierKind.GRID]
            assert len(grids) == (1 if name != "loop" else 2)  # never a grid barrier too many


def test_without_grid_barriers_races_between_blocks_stay() -> None:
    """``grid_cost=None`` (no cooperative launch): no grid barrier is offered; the race inside
    the block is still fixed and the one between blocks stays."""
    res = synthesize(_kernel("mixed"), SDVOracle(), warp_cost=None)
    assert res.status == FIXED and [a.kind for a in res.placement] == [BarrierKind.SYNCTHREADS]
    assert [r.array for r in res.inter_block] == ["row"]
    assert synthesize(_kernel("between"), SDVOracle()).status == "unfixable"
