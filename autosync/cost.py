"""The barrier cost model of Sec. III-C.

    C(ℓ) = LC^|loops(ℓ)| × IC^|conds(ℓ)|,   C(L) = Σ_{ℓ ∈ L} C(ℓ)

LC > 1 approximates how often a loop iterates, 0 < IC < 1 how often a guard holds
(defaults LC = 100, IC = 0.5 as in Fig. 10).  Costs are exact rationals
(:class:`fractions.Fraction`): MaxSAT back ends need integer weights, and rounding could merge
two different costs into one and make the solver's optimum differ from the model's
(CONTRIBUTING.md, "Cost model").  :func:`integer_weights` therefore scales by the LCM of the
denominators, which maps distinct costs to distinct integers and preserves every sum
comparison exactly.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from fractions import Fraction

from kpl.labels import LabelTree
from kpl.placement import BarrierKind, Placement

DEFAULT_LC = 100
DEFAULT_IC = 0.5


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
                 ic: int | float | str | Fraction = DEFAULT_IC, *, uniform: Iterable[int] = ()) -> None:
        self.tree = tree
        self.lc = as_fraction(lc)
        self.ic = as_fraction(ic)
        self.uniform = frozenset(uniform)
        if self.lc <= 0 or self.ic <= 0:
            raise ValueError(f"LC and IC must be positive (got LC={lc}, IC={ic})")

    def cost(self, label: int) -> Fraction:
        """C(ℓ) = LC^|loops(ℓ)| × IC^|conds(ℓ)|, conds(ℓ) without the uniformly true guards."""
        conds = [c for c in self.tree.conds(label) if c not in self.uniform]
        return self.lc ** len(self.tree.loops(label)) * self.ic ** len(conds)

    def total(self, labels: Iterable[int]) -> Fraction:
        """C(L) = Σ C(ℓ)."""
        return sum((self.cost(lab) for lab in labels), Fraction(0))

    def placement(self, labels: Iterable[int],
                  kind: BarrierKind = BarrierKind.SYNCTHREADS) -> Placement:
        """The placement of ``kind`` barriers after ``labels``, each anchor priced C(ℓ)."""
        return Placement.of(labels, self.cost, kind)


def barrier_cost(tree: LabelTree, label: int, lc: int | float | str | Fraction = DEFAULT_LC,
                 ic: int | float | str | Fraction = DEFAULT_IC) -> Fraction:
    return CostModel(tree, lc, ic).cost(label)


def scale_factor(costs: Iterable[Fraction]) -> int:
    """The least positive integer k with k·c integral for every cost c."""
    k = 1
    for c in costs:
        k = math.lcm(k, Fraction(c).denominator)
    return k


def integer_weights(costs: Mapping[int, Fraction]) -> tuple[dict[int, int], int]:
    """Exact integer weights for MaxSAT: ``(label -> k·C(ℓ), k)``.  Injective on distinct
    costs and order-preserving on sums, because it is multiplication by one positive k."""
    k = scale_factor(costs.values())
    weights = {lab: int(c * k) for lab, c in costs.items()}
    for lab, c in costs.items():
        assert weights[lab] == c * k
    return weights, k
