"""Barrier insertion and stripping on KPL kernels (INSERTBARRIERS of Alg. 1, line 20).

``insert_barriers(kernel, L)`` builds the candidate kernel' of Algorithm 1: a copy of
``kernel`` with a ``barrier`` statement inserted as the *right sibling* of every ℓ ∈ L
(Sec. III-A, "kernel synchronization problem").  The paper assumes that INSERTBARRIERS leaves
the labels of existing statements unmodified and gives the new barriers fresh labels
(Sec. III-D); both hold here, so race locations reported on kernel' name the same leaves as on
the input and the constraint system stays meaningful across REFINE iterations.

Where "right sibling of ℓ" lands in the statement lists:

* ℓ a leaf or a compound statement -> right after that statement in its block;
* ℓ = ℓ_s, the start node of a block -> first statement of that block (footnote 2);
* ℓ an ``else`` block label -> right after the whole ``if``/``else`` statement (the else
  block is the right sibling of the ``if`` in the label tree, see :mod:`kpl.labels`);
* ℓ a statement of a loop latch -> right after it in the latch.

``strip_barriers`` is the inverse used by ``compare`` and the benchmarks (Sec. IV-B: "we
first remove all barrier statements from the baseline version"): it removes every plain
:class:`~kpl.ast.Barrier` and returns, for each, the label it was the right sibling of, so that
``insert_barriers(stripped, anchors, check_placeable=False)`` rebuilds the same structure.
Named barriers (``bar.sync``/``bar.arrive``) are not barriers in the paper's sense and stay.

The copy is structural: statements and blocks are copied, expressions (frozen dataclasses)
are shared.  The input kernel is never mutated.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Callable, Iterable

from kpl.ast import Barrier, Block, If, Inline, Kernel, Loop, Stmt, Switch
from kpl.labels import LabelTree
from kpl.placement import BarrierKind, Placement, as_placement


def _after_label(stmt: Stmt) -> int:
    """The label whose right sibling is the position right after ``stmt`` in its block: the
    ``else`` label for an if/else (the else block follows the ``if`` in the label tree)."""
    if isinstance(stmt, If) and stmt.els is not None:
        return stmt.els.label
    return stmt.label


class _Inserter:
    """One pass over the kernel copying blocks and inserting barriers after wanted labels."""

    def __init__(self, kernel: Kernel, wanted: dict[int, list[BarrierKind]]) -> None:
        self.kernel = kernel
        self.wanted = wanted  # anchor -> the kinds of the barriers to insert after it
        self.mapping: dict[int, int] = {}

    def _barriers_after(self, anchor: int) -> list[Stmt]:
        out: list[Stmt] = []
        for kind in self.wanted.pop(anchor, []):
            label = self.kernel.fresh_label()
            out.append(Barrier(label=label, spelling=kind.value, kind=kind))
            self.mapping[label] = anchor
        return out

    def _stmts(self, stmts: list[Stmt]) -> list[Stmt]:
        out: list[Stmt] = []
        for stmt in stmts:
            out.append(self.stmt(stmt))
            out.extend(self._barriers_after(_after_label(stmt)))
        return out

    def block(self, block: Block) -> Block:
        new = copy.copy(block)
        new.stmts = self._barriers_after(block.start_label) + self._stmts(block.stmts)
        return new

    def stmt(self, stmt: Stmt) -> Stmt:
        new = copy.copy(stmt)
        if isinstance(new, If):
            new.then = self.block(new.then)
            if new.els is not None:
                new.els = self.block(new.els)
        elif isinstance(new, Loop):
            new.body = self.block(new.body)
            new.latch = self._stmts(new.latch)
        elif isinstance(new, (Switch, Inline)):
            new.body = self.block(new.body)
        return new


def copy_kernel(kernel: Kernel) -> Kernel:
    """A structural copy of ``kernel`` (statements and blocks fresh, expressions shared)."""
    return _copy_with(kernel, {})[0]


def _copy_with(kernel: Kernel, wanted: dict[int, list[BarrierKind]]) -> tuple[Kernel, dict[int, int]]:
    new = dataclasses.replace(
        kernel,
        params=list(kernel.params),
        memories=dict(kernel.memories),
        requires=list(kernel.requires),
        expected=dict(kernel.expected),
    )
    inserter = _Inserter(new, wanted)
    new.body = inserter.block(kernel.body)
    if inserter.wanted:
        missing = sorted(lab for lab, n in inserter.wanted.items() if n)
        raise ValueError(f"labels not found in kernel {kernel.name}: {missing}")
    return new, inserter.mapping


def insert_barriers(kernel: Kernel, placement: Placement | Iterable[int], *,
                    check_placeable: bool = True) -> tuple[Kernel, dict[int, int]]:
    """INSERTBARRIERS(kernel, L) of Alg. 1, line 20.

    Returns a copy of ``kernel`` with one ``Barrier`` of the anchor's kind as the right
    sibling of each anchor of ``placement`` (plain labels: ``__syncthreads()``; an anchor
    listed twice gets two consecutive barriers, which is what :func:`strip_barriers` needs for
    a kernel that had ``__syncthreads(); __syncthreads();``) and the map *new barrier label ->
    anchor label*.  Existing labels are unchanged; the new barriers get fresh labels from the
    copy's ``fresh_label`` (the input is not mutated).

    Raises ``ValueError`` for a label that is not in the kernel, or (with
    ``check_placeable``) that :meth:`LabelTree.placeable` rejects -- e.g. the then-block of an
    if/else, whose right sibling position lies between ``}`` and ``else``.
    """
    wanted: dict[int, list[BarrierKind]] = {}
    for anchor in as_placement(placement):
        wanted.setdefault(anchor.label, []).append(anchor.kind)
    if check_placeable and wanted:
        tree = LabelTree(kernel)
        bad = sorted(lab for lab in wanted if lab not in tree.nodes or not tree.placeable(lab))
        if bad:
            raise ValueError(f"cannot place a barrier after labels {bad} in kernel {kernel.name}")
    return _copy_with(kernel, wanted)


@dataclasses.dataclass(frozen=True)
class Stripped:
    """A removed barrier: the label it was the right sibling of, and the statement itself
    (its ``span`` locates the text the renderer must delete)."""

    anchor: int
    barrier: Barrier


def barrier_anchors(kernel: Kernel, *, grid: bool = False) -> list[tuple[int, Barrier]]:
    """Every plain barrier of ``kernel`` in text order, with its anchor: the previous
    sibling's label (the ``else`` label after an if/else), or the block's start label ℓ_s
    when it is the first statement.  Consecutive barriers share the anchor.  A grid barrier
    (``BarrierKind.GRID``) is not listed: it is a fixed part of the program, which synthesis
    never removes -- unless ``grid`` (a caller that moves the barriers synthesis inserted,
    grid barriers among them, :mod:`autosync.algorithm.all_launches`); nor is a barrier
    inside an expression (``Barrier.fixed``)."""
    out: list[tuple[int, Barrier]] = []

    def stmts(items: list[Stmt], anchor: int) -> int:
        for stmt in items:
            if isinstance(stmt, Barrier) and (grid or stmt.kind is not BarrierKind.GRID) and not stmt.fixed:
                out.append((anchor, stmt))
                continue
            if isinstance(stmt, If):
                block(stmt.then)
                if stmt.els is not None:
                    block(stmt.els)
            elif isinstance(stmt, Loop):
                last = block(stmt.body)
                stmts(stmt.latch, last)
            elif isinstance(stmt, (Switch, Inline)):
                block(stmt.body)
            anchor = _after_label(stmt)
        return anchor

    def block(blk: Block) -> int:
        return stmts(blk.stmts, blk.start_label)

    block(kernel.body)
    return out


def strip_barriers_detailed(kernel: Kernel, *, grid: bool = False,
                            which: Callable[[Barrier], bool] | None = None) -> tuple[Kernel, list[Stripped]]:
    """Like :func:`strip_barriers` but keeps each removed ``Barrier`` (with its span); ``grid``
    strips grid barriers too, ``which`` only the barriers it accepts (``fix --minimize``)."""
    found = [Stripped(anchor, bar) for anchor, bar in barrier_anchors(kernel, grid=grid)
             if which is None or which(bar)]
    removed = {id(s.barrier) for s in found}

    class _Stripper(_Inserter):
        def _stmts(self, stmts: list[Stmt]) -> list[Stmt]:
            return [self.stmt(s) for s in stmts if id(s) not in removed]

    new = copy_kernel(kernel)
    new.body = _Stripper(new, {}).block(kernel.body)
    return new, found


def strip_barriers(kernel: Kernel) -> tuple[Kernel, list[int]]:
    """Remove every plain ``Barrier`` (not ``NamedBarrier``); return the stripped copy and
    the anchor of each removed barrier in text order.  ``barrier_anchors(kernel)`` gives the
    same anchors paired with the removed statements (and their spans).

    Round trip: ``insert_barriers(stripped, anchors, check_placeable=False)`` has the same
    statement structure as ``kernel``.  (One exception: a barrier at the very start of a loop
    latch comes back at the end of the loop body -- both are the right sibling of the body's
    last label; no C source can write a barrier in a for-step.)
    """
    new, found = strip_barriers_detailed(kernel)
    return new, [s.anchor for s in found]
