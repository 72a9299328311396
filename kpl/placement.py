"""A barrier placement as one frozen value: where the barriers go, which barrier, what it costs.

[AutoSync] Sec. III-A states the kernel synchronization problem as choosing a set 𝓛 of labels
and inserting a barrier as the right sibling of every ℓ ∈ 𝓛; Sec. III-C prices it as
C(𝓛) = Σ C(ℓ).  Synthesis produces such a set, INSERTBARRIERS (:mod:`kpl.transform`) turns it
into a candidate kernel, ``compare`` prices the developer's, and the renderer writes it into
the user's file.  :class:`Placement` is the one shape all of them pass around, unchanged.

It lives in ``kpl`` because the front end's transform consumes it and ``kpl`` must not import
``autosync``; the cost function that fills in :attr:`Anchor.cost` stays in
:mod:`autosync.cost` (``CostModel.placement``).

An anchor may appear twice: a developer's ``__syncthreads(); __syncthreads();`` is two
barriers after one label, and stripping then re-inserting them must give both back.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from fractions import Fraction

#: lanes of a warp on every NVIDIA GPU (``warpSize``): what a ``__syncwarp()`` orders, and how
#: the oracles group threads
WARP_SIZE = 32


class BarrierKind(enum.Enum):
    """Which barrier sits at an anchor; the value is its CUDA spelling in the KPL AST.

    ``SYNCTHREADS`` orders all threads of the block (the paper's only kind); ``SYNCWARP``
    orders only the threads of one warp (32 lanes of consecutive linear thread id), which is
    all a race between two lanes of one warp needs under independent thread scheduling
    ([WarpsAtomics] Sec. 3: without lock-step, lanes of a warp interleave like any threads).
    Synthesis prices each kind separately (``autosync.cost``)."""

    SYNCTHREADS = "__syncthreads()"
    SYNCWARP = "__syncwarp()"
    #: ``__syncwarp(mask)`` with a mask other than the constant full one: it orders only the
    #: named lanes, which no oracle models (they answer "unknown"); never synthesized
    SYNCWARP_MASKED = "__syncwarp(mask)"
    #: ``grid_group::sync()`` (``cg::this_grid().sync()``): a block barrier that also orders
    #: threads of different blocks (accesses before it in one block happen before accesses
    #: after it in any other).  Synthesis inserts one only for a cooperative launch (issue 37,
    #: ``fix --grid-sync``); the user's own are never removed (``kpl.transform.barrier_anchors``
    #: skips them, so they stay fixed statements)
    GRID = "grid.sync()"

    @property
    def warp(self) -> bool:
        """Does this barrier order only (some of) the threads of one warp?"""
        return self is not BarrierKind.SYNCTHREADS and self is not BarrierKind.GRID


@dataclass(frozen=True)
class Anchor:
    """One barrier: inserted as the right sibling of ``label``, of ``kind``, costing C(ℓ)."""

    label: int
    cost: Fraction = Fraction(0)
    kind: BarrierKind = BarrierKind.SYNCTHREADS


@dataclass(frozen=True)
class Placement:
    """The barriers of one kernel: anchors in text order (repeats allowed) with exact costs."""

    anchors: tuple[Anchor, ...] = ()

    @classmethod
    def of(cls, labels: Iterable[int], cost: Callable[[int], Fraction] | None = None,
           kind: BarrierKind = BarrierKind.SYNCTHREADS) -> Placement:
        """A placement of ``kind`` barriers after ``labels``, each priced by ``cost`` (C(ℓ);
        zero when no cost function is given, e.g. for a structural round trip)."""
        return cls(tuple(Anchor(lab, Fraction(0) if cost is None else cost(lab), kind)
                         for lab in labels))

    @property
    def labels(self) -> tuple[int, ...]:
        """The anchor labels, in order (a label twice when it carries two barriers)."""
        return tuple(a.label for a in self.anchors)

    @property
    def label_set(self) -> frozenset[int]:
        return frozenset(a.label for a in self.anchors)

    @property
    def cost(self) -> Fraction:
        """C(𝓛) = Σ C(ℓ), exact ([AutoSync] Sec. III-C)."""
        return sum((a.cost for a in self.anchors), Fraction(0))

    def cost_at(self, label: int) -> Fraction:
        """C(ℓ) of the barrier(s) after ``label`` (one barrier's cost; 0 when none there)."""
        return next((a.cost for a in self.anchors if a.label == label), Fraction(0))

    def without(self, index: int) -> Placement:
        """The same placement minus its ``index``-th barrier."""
        return Placement(self.anchors[:index] + self.anchors[index + 1:])

    def __len__(self) -> int:
        return len(self.anchors)

    def __iter__(self) -> Iterator[Anchor]:
        return iter(self.anchors)

    def __contains__(self, label: object) -> bool:
        return any(a.label == label for a in self.anchors)


EMPTY = Placement()


def as_placement(where: Placement | Iterable[int]) -> Placement:
    """``where`` as a placement: plain labels (hand-built tests, structural round trips) become
    zero-cost ``SYNCTHREADS`` anchors."""
    return where if isinstance(where, Placement) else Placement.of(where)
