"""``fix --minimize`` (issue 37, item 3): the developer's own barriers become candidates too.

Without it ``fix`` never deletes the user's code: it inserts barriers around the ones written.
With it, the kernel's barriers (every kind: ``__syncthreads()``, ``__syncwarp()``, grid
barriers) are stripped and the placement is synthesized from scratch over ALL positions, so
the result is the least-cost verified placement of Sec. III-C; among equal-cost optima the
developer's positions and kinds win (``prefer``, the tie-break of
:class:`autosync.algorithm.constraints.ConstraintSystem`).  A developer barrier the result
keeps stays as written; one it does not keep is deleted byte-exactly (the line goes when it
held only the barrier, :meth:`autosync.render.patch._Planner.remove`), and the new ones are
inserted.  Never candidates, so never removed: a barrier whose value is used
(``__syncthreads_or(p)``, ``Barrier.fixed``), one inside a macro expansion or not written in
the kernel's own file (its text is not the user's to delete here).

A kernel launched with several configurations is not minimized (the other launches' kernels
would still hold the barriers being removed): it gets the ordinary fix, with a note.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace

from autosync.algorithm.macro_sites import macro_uses
from autosync.algorithm.synthesis import FIXED, VERIFIED, SynthesisResult
from kpl.ast import Barrier, Kernel
from kpl.placement import Anchor, BarrierKind, Placement
from kpl.transform import strip_barriers_detailed

#: synthesis of a stripped kernel with the developer's (label, kind) pairs preferred
Synthesize = Callable[[Kernel, list[tuple[int, BarrierKind]]], SynthesisResult]


@dataclass
class Minimized:
    """The minimized fix of one kernel: the synthesis over all positions (``result``, its
    placement the whole final set of barriers), what to insert into the original text and
    the developer's barriers to delete."""

    result: SynthesisResult
    insert: Placement
    removed: list[Barrier] = field(default_factory=list)


def removable(kernel: Kernel) -> Callable[[Barrier], bool]:
    """Which of ``kernel``'s barriers ``--minimize`` may delete (see the module docstring;
    the value-used ones are never listed by ``barrier_anchors``)."""
    uses = macro_uses(kernel.source_text, kernel.macros)

    def ok(bar: Barrier) -> bool:
        span = bar.span
        if span is None or span.start < 0 or span.end <= span.start or \
                span.file not in ("", kernel.source_path):
            return False
        return not any(u.start < span.end and span.start < u.end for u in uses)
    return ok


def minimize(kernel: Kernel, synthesize: Synthesize) -> Minimized | None:
    """The least-cost placement of ``kernel`` with its own barriers as candidates; None when
    it has no removable barrier, when synthesis fails from scratch (the ordinary fix then
    decides) or when the result is the developer's own placement plus nothing."""
    stripped, found = strip_barriers_detailed(kernel, grid=True, which=removable(kernel))
    if not found:
        return None
    res = synthesize(stripped, [(s.anchor, s.barrier.kind) for s in found])
    if not res.ok:
        return None
    left = list(found)
    insert: list[Anchor] = []
    for anchor in res.placement:
        same = next((s for s in left if s.anchor == anchor.label and s.barrier.kind is anchor.kind), None)
        if same is not None:
            left.remove(same)  # the developer's barrier stays as written
        else:
            insert.append(anchor)
    if not left and not insert:
        return None
    if res.status == VERIFIED:  # nothing needed at all: every removable barrier goes
        res = replace(res, status=FIXED, kernel=stripped)
    return Minimized(res, Placement(tuple(insert)), [s.barrier for s in left])
