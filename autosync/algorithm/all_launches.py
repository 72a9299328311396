"""One oracle for every launch a kernel is run with, so ``fix`` can synthesize ONE placement
that verifies under all of them.

A file that launches one kernel with several configurations (``k<<<1, 32>>>(…)`` and
``k<<<1, 64>>>(…)``) is lowered once per distinct configuration (:mod:`autosync.pipeline.project`):
the same text, so the same statements and labels, but different ``blockDim``/``gridDim``.  A
race may exist under one launch only.  [AutoSync] Alg. 1 needs one oracle; :class:`AllLaunches`
is that oracle: it answers for the first configuration, and when that verifies it transplants
the candidate's inserted barriers into each other configuration's kernel
(:func:`kpl.transform.insert_barriers` on the same anchors) and answers with the first one that
does not verify.  REFINE then adds that counterexample's constraints, so the loop converges on
a placement verified under every launch (a counterexample-guided loop over the launches).  A
placement that verifies under each configuration verifies under their union: that is all a
launch set means.

The configurations must lower to the same label tree (they do unless a launch constant changes
the statements, e.g. a loop unrolled by a constant bound); :func:`same_shape` checks it, and
``fix`` refuses otherwise rather than mixing labels of two different trees.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from kpl.ast import Barrier, Kernel
from kpl.labels import LabelTree
from kpl.placement import Anchor, BarrierKind, Placement
from kpl.transform import barrier_anchors, insert_barriers
from oracle.base import Oracle, Race, Verdict


def _shape(kernel: Kernel) -> tuple[object, ...]:
    tree = LabelTree(kernel)
    return (kernel.next_label, tuple(sorted((lab, n.kind, n.parent, tuple(n.children))
                                            for lab, n in tree.nodes.items())))


def same_shape(kernels: list[Kernel]) -> bool:
    """True when every kernel has the label tree of the first (labels, kinds, nesting)."""
    first = _shape(kernels[0])
    return all(_shape(k) == first for k in kernels[1:])


def _kind(barrier: Barrier) -> BarrierKind:
    try:
        return BarrierKind(barrier.spelling)
    except ValueError:  # a macro spelling of __syncthreads()
        return BarrierKind.SYNCTHREADS


@dataclass
class AllLaunches:
    """An :class:`~oracle.base.Oracle` judging a candidate of ``primary`` under ``primary``'s
    launch and then under each of ``others`` (the same kernel lowered for its other launches)."""

    oracle: Oracle  # the oracle of one configuration (the one ``fix`` picked for the kernel)
    primary: Kernel  # the input as synthesis sees it: candidates are copies of it
    others: list[Kernel]  # the same kernel lowered under its other launch configurations
    name: str = field(init=False)
    #: how many candidates a later configuration refuted after the first verified them
    refuted_by_others: int = 0

    def __post_init__(self) -> None:
        self.name = self.oracle.name

    def _transplant(self, candidate: Kernel, other: Kernel) -> tuple[Kernel, dict[int, int]]:
        """``other`` with the barriers synthesis inserted into ``candidate`` (those with a
        label the input does not have), and the map of their labels back to ``candidate``'s."""
        new = [(anchor, bar) for anchor, bar in barrier_anchors(candidate, grid=True)
               if bar.label >= self.primary.next_label]
        if not new:
            return other, {}
        placement = Placement(tuple(Anchor(anchor, kind=_kind(bar)) for anchor, bar in new))
        moved, mapping = insert_barriers(other, placement, check_placeable=False)
        # both copies hand out fresh labels in the one traversal order of one label tree
        back = dict(zip(sorted(mapping), sorted(bar.label for _, bar in new), strict=True))
        return moved, back

    def check(self, kernel: Kernel) -> Verdict:
        """The first launch's verdict when it has a problem inside a block, else the first
        other launch's that has one; otherwise the races between blocks of every launch
        (no barrier orders them, so they never stop the search, but they are reported)."""
        verdict = self.oracle.check(kernel)
        if not verdict.verified_within_blocks:
            return verdict
        between = list(verdict.inter_block)
        for other in self.others:
            moved, back = self._transplant(kernel, other)
            found = self.oracle.check(moved)
            if found.verified:
                continue
            found = _relabel(found, back)
            if not found.verified_within_blocks:
                self.refuted_by_others += 1
                return found
            keys = {r.key for r in between}
            between += [r for r in found.inter_block if r.key not in keys]
        return replace(verdict, races=between)

    def races(self, kernel: Kernel) -> list[Race]:
        return self.check(kernel).races

    def divergences(self, kernel: Kernel) -> list[int]:
        return [d.label for d in self.check(kernel).divergences]


def _relabel(verdict: Verdict, back: dict[int, int]) -> Verdict:
    """A verdict on a transplanted candidate, in the labels of the candidate synthesis built
    (existing statements keep their labels; only inserted barriers are renamed)."""
    def lab(x: int) -> int:
        return back.get(x, x)

    return replace(verdict,
                   races=[replace(r, first=lab(r.first), second=lab(r.second)) for r in verdict.races],
                   divergences=[replace(d, label=lab(d.label)) for d in verdict.divergences])


__all__ = ["AllLaunches", "same_shape"]
