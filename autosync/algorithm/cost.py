"""The barrier cost model of Sec. III-C.

    C(ℓ) = LC^|loops(ℓ)| × IC^|conds(ℓ)|,   C(L) = Σ_{ℓ ∈ L} C(ℓ)

LC > 1 approximates how often a loop iterates, 0 < IC < 1 how often a guard holds
(defaults LC = 100, IC = 0.5 as in Fig. 10).

Beyond the paper: a ``__syncwarp()`` at ℓ costs WC × C(ℓ) (``--warp-barrier-cost``, default
WC = 1/20).  Why cheaper: ``__syncthreads()`` is ``bar.sync 0``, which stalls every warp of
the block until the slowest one arrives, so its price grows with the block's imbalance;
``__syncwarp()`` is one ``WARPSYNC`` instruction that waits only for the lanes of the calling
warp (a no-op when they are converged) and leaves the other warps running ([WarpsAtomics]
Sec. 3 on why lanes of one warp still need it without lock-step).  Why 1/20: measured with
``microbench/barrier_cost.py`` on an H100 (sm_90, CUDA 13.0).  A dependent shared-memory step
pays 0.74 cycles for a ``__syncwarp()`` and 24.9 for a ``__syncthreads()`` at 256 threads
(ratio 0.030; 0.000 to 0.064 over 32 to 1,024 threads), and a block reduction whose
warp-synchronous tail is ordered by ``__syncwarp()`` runs no slower than with no barrier,
while ``__syncthreads()`` there makes the whole kernel 1.9× slower.  1/20 rounds the
256-thread figure up, above every ratio measured at 256 threads or fewer, and keeps a warp
barrier non-zero so the model still prefers fewer barriers.  Tune it with the flag for a
given GPU.  Costs are exact rationals (:class:`fractions.Fraction`): MaxSAT back ends need
integer weights, and rounding could merge two different costs into one and make the solver's
optimum differ from the model's (CONTRIBUTING.md, "Cost model").  :func:`integer_weights`
therefore scales by the LCM of the denominators, which maps distinct costs to distinct
integers and preserves every sum comparison exactly.

A grid barrier (cooperative groups' ``this_grid().sync()``) at ℓ costs GC × C(ℓ)
(:data:`DEFAULT_GRID_COST`, GC = 100).  Why so dear: it waits for every thread of every block
of the grid, co-resident on the whole GPU, and is built from a block barrier, a fence and an
atomic handshake through global memory.  Not measured here (no GPU was lent to the session
that added it; ``microbench/barrier_cost.py`` times WC only): the figure is cited.
[GridSync] (README, Bibliography) time a grid sync in microseconds where a block barrier
takes tens of cycles (our own 24.9 cycles at 256 threads above), a ratio of the order of 100.
What ``fix`` needs is only GC > 1: a race inside a block is then fixed by a block barrier,
never by a grid barrier at the same position.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from fractions import Fraction
from typing import TypeVar

from kpl.ast import ALL_FENCES, Space
from kpl.labels import LabelTree
from kpl.placement import Anchor, BarrierKind, Placement

Key = TypeVar("Key")

DEFAULT_LC = 100
DEFAULT_IC = 0.5
#: WC: a ``__syncwarp()`` costs WC × C(ℓ) (measured; see the module docstring for why 1/20)
DEFAULT_WARP_COST = Fraction(1, 20)
#: GC: a grid barrier costs GC × C(ℓ) (cited; see the module docstring for why 100)
DEFAULT_GRID_COST = Fraction(100)


def as_fraction(value: int | float | str | Fraction) -> Fraction:
    """``value`` as an exact rational.  Floats go through their shortest repr, so ``0.1`` is
    1/10 (what the user typed), not 3602879701896397/2**55."""
    if isinstance(value, float):
        return Fraction(repr(value))
    return Fraction(value)


class CostModel:
    """C(ℓ) for the labels of one label tree (Sec. III-C).

    ``uniform`` (optional oracle fact, ``Verdict.uniform_guards``): ``if`` labels whose guard
    is proved true for every thread that reaches it.  Such a guard is not a condition in the
    sense of IC -- a barrier inside runs exactly as often as one outside -- so it is left out
    of conds(ℓ); without the fact every guard is discounted, as in the paper."""

    def __init__(self, tree: LabelTree, lc: int | float | str | Fraction = DEFAULT_LC,
                 ic: int | float | str | Fraction = DEFAULT_IC,
                 warp: int | float | str | Fraction = DEFAULT_WARP_COST, *,
                 grid: int | float | str | Fraction = DEFAULT_GRID_COST,
                 uniform: Iterable[int] = ()) -> None:
        self.tree = tree
        self.lc = as_fraction(lc)
        self.ic = as_fraction(ic)
        self.warp = as_fraction(warp)
        self.grid = as_fraction(grid)
        self.uniform = frozenset(uniform)
        if self.lc <= 0 or self.ic <= 0 or self.warp <= 0 or self.grid <= 0:
            raise ValueError(f"LC, IC and the warp and grid barrier costs must be positive (got "
                             f"LC={lc}, IC={ic}, WC={warp}, GC={grid})")

    def cost(self, label: int, kind: BarrierKind = BarrierKind.SYNCTHREADS) -> Fraction:
        """C(ℓ) = LC^|loops(ℓ)| × IC^|conds(ℓ)|, conds(ℓ) without the uniformly true guards,
        times WC for a ``__syncwarp()``, times GC for a grid barrier."""
        conds = [c for c in self.tree.conds(label) if c not in self.uniform]
        base = self.lc ** len(self.tree.loops(label)) * self.ic ** len(conds)
        if kind is BarrierKind.GRID:
            return base * self.grid
        return base * self.warp if kind.warp else base

    def total(self, labels: Iterable[int]) -> Fraction:
        """C(L) = Σ C(ℓ)."""
        return sum((self.cost(lab) for lab in labels), Fraction(0))

    def placement(self, labels: Iterable[int],
                  kind: BarrierKind = BarrierKind.SYNCTHREADS) -> Placement:
        """The placement of ``kind`` barriers after ``labels``, each anchor priced C(ℓ)."""
        return Placement.of(labels, lambda lab: self.cost(lab, kind), kind)

    def mixed(self, anchors: Iterable[tuple[int, BarrierKind]]) -> Placement:
        """The placement of one barrier of the given kind after each label, priced by kind."""
        return Placement(tuple(Anchor(lab, self.cost(lab, kind), kind) for lab, kind in anchors))


#: OpenCL's fences: the price of ``barrier(flags)`` relative to a barrier ordering both spaces
#: (CUDA's ``__syncthreads()``, C(ℓ) above).  A local fence waits only for the work-group's
#: local-memory operations; a global fence for its global writes to become visible, which is
#: most of a full barrier's price.  An estimate (not measured: no OpenCL device here); what
#: matters to ``fix`` is the order local < global = both (ties go to the fence ordering more).
FENCE_COST: dict[frozenset[Space], Fraction] = {
    frozenset({Space.SHARED}): Fraction(1, 2),
    frozenset({Space.GLOBAL}): Fraction(1),
    ALL_FENCES: Fraction(1),
}


def fence_cost(fences: frozenset[Space]) -> Fraction:
    """The factor of a barrier with ``fences`` on C(ℓ) (:data:`FENCE_COST`)."""
    return FENCE_COST[fences]


def barrier_cost(tree: LabelTree, label: int, lc: int | float | str | Fraction = DEFAULT_LC,
                 ic: int | float | str | Fraction = DEFAULT_IC) -> Fraction:
    return CostModel(tree, lc, ic).cost(label)


def scale_factor(costs: Iterable[Fraction]) -> int:
    """The least positive integer k with k·c integral for every cost c."""
    k = 1
    for c in costs:
        k = math.lcm(k, Fraction(c).denominator)
    return k


def integer_weights(costs: Mapping[Key, Fraction]) -> tuple[dict[Key, int], int]:
    """Exact integer weights for MaxSAT: ``(label -> k·C(ℓ), k)`` (or any key, e.g. a label
    and a barrier kind).  Injective on distinct costs and order-preserving on sums, because
    it is multiplication by one positive k."""
    k = scale_factor(costs.values())
    weights = {lab: int(c * k) for lab, c in costs.items()}
    for lab, c in costs.items():
        assert weights[lab] == c * k
    return weights, k
