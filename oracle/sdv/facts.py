"""Optional facts of the ``sdv`` oracle beyond races: which ``if`` guards are uniformly true.

A barrier inside ``if (ix < imageW)`` costs IC × C in [AutoSync]'s cost model (Sec. III-C):
the guard is assumed to hold half of the time.  When the launch and the ``__requires`` make the
guard true for EVERY thread that reaches the ``if`` (``imageW`` is the grid's width), the barrier
runs exactly as often as one before the ``if``, and the discount makes a placement look cheaper
than the developer's when it is not.  This module proves such guards, so the cost model can
charge them as unconditional (``Verdict.uniform_guards``, :class:`autosync.cost.CostModel`).

How: the executor logs, for every ``if`` it runs, thread 1's path condition p and guard c
(``Machine.guards``; thread 1 is an arbitrary thread of an arbitrary block).  One query per
``if`` with a barrier position inside asks for ⋁ (p ∧ ¬c) over its executions, on top of the
run's facts (launch bounds, ``__requires``, loop invariants); UNSAT proves the guard true
whenever it is evaluated.  SAT, unknown or no execution at all: not claimed.  Guards that read
memory are hoisted into locals the two-thread abstraction does not know, so they are never
claimed.  The result depends on the kernel without its barriers only (barriers change no
local value), so it is cached per barrier-free kernel: a synthesis run asks once.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

import z3

from kpl.ast import Kernel
from kpl.labels import IF, LabelTree
from kpl.transform import strip_barriers
from oracle.sdv.state import Machine, mk_and, mk_not, mk_or

#: most kernels remembered per oracle instance
CACHE_SIZE = 64


def guard_key(kernel: Kernel) -> tuple[Any, ...]:
    """What the uniform guards of ``kernel`` depend on: the kernel without its barriers,
    its launch and its assumptions."""
    bare = strip_barriers(kernel)[0]
    return (kernel.name, repr(bare.body), repr(kernel.launch), repr(kernel.requires))


def guard_candidates(tree: LabelTree) -> set[int]:
    """``if`` labels with a barrier position inside (the only ones whose discount matters)."""
    return {c for lab in tree.labels() if tree.placeable(lab) for c in tree.conds(lab)
            if tree.kind(c) == IF}


def uniform_guards(ex: Machine, tree: LabelTree) -> frozenset[int]:
    """The ``if`` labels whose guard holds for every thread that evaluates it (proved)."""
    if ex.kernel.launch.threads_per_block < 2:  # two distinct threads cannot exist: every query would be vacuous
        return frozenset()
    hits: dict[int, list[z3.BoolRef]] = {}
    for label, path, guard in ex.guards:
        hits.setdefault(label, []).append(mk_and(path, mk_not(guard)))
    out = set()
    for label in sorted(guard_candidates(tree) & set(hits)):
        result, _ = ex.q.check(mk_or(*hits[label]))
        if result == z3.unsat:
            out.add(label)
    return frozenset(out)


class GuardCache:
    """Uniform guards per barrier-free kernel (least recently used dropped first)."""

    def __init__(self, size: int = CACHE_SIZE) -> None:
        self.size = size
        self._known: OrderedDict[tuple[Any, ...], frozenset[int]] = OrderedDict()

    def get(self, kernel: Kernel, ex: Machine, tree: LabelTree) -> frozenset[int]:
        key = guard_key(kernel)
        if key in self._known:
            self._known.move_to_end(key)
            return self._known[key]
        found = uniform_guards(ex, tree)
        self._known[key] = found
        while len(self._known) > self.size:
            self._known.popitem(last=False)
        return found


__all__ = ["guard_key", "guard_candidates", "uniform_guards", "GuardCache"]
