"""Named-barrier synthesis for a warp-specialised producer/consumer race ([WEFT]).

In a warp-specialised kernel the producer warps and the consumer warps take the two arms of one
``if``; a ``__syncthreads()`` between them would be divergent, so Algorithm 1 ([AutoSync])
reports such a race as unfixable.  PTX named barriers are made for it: the producer signals
with the non-blocking ``bar.arrive id, n`` after its last write, the consumer waits with
``bar.sync id, n`` before its first read, and ``n`` counts the threads of both groups
([WEFT] Sec. 3.3).  Stages:

1. **Races to arms** (:func:`arms_of`): every race must be a write in one arm and a read in
   the other arm of one ``if``/``else`` (at any depth inside the arms: loops, nested blocks);
   the writing arm is the producer.  A write/write race, data flowing both ways (which needs
   two pairs) or a race inside one arm are refused with that reason.
2. **The least-cost pair** (:func:`autosync.algorithm.named_search.search`): positions anywhere in the
   arms, priced by the cost model of Algorithm 1, tried cheapest first and verified by the
   ``named`` oracle; ``n`` and the groups come from running the CTA concretely.
3. **The spelling** (:func:`spelling`): the id is the least of 1..15 that the kernel does not
   use (0 is ``__syncthreads()``); the spelling is the file's own (an existing
   ``asm volatile("bar.sync 1, 64;")`` is copied with the new operation, id and count).

:func:`choose_pair` hands the pair back as data; writing it into the text, checking the
re-parsed text with the ``named`` oracle again and running the whole ``fix`` pipeline on it is
the pipeline's step :mod:`autosync.pipeline.named_fix`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction

from autosync.algorithm.cost import DEFAULT_IC, DEFAULT_LC, CostModel
from autosync.algorithm.named_search import Search, search
from kpl.ast import If, Kernel, NamedBarrier, walk_stmts
from kpl.labels import LabelTree
from kpl.placement import Anchor, Placement
from oracle.base import AccessKind, Oracle, Verdict

#: PTX has 16 named barriers per CTA; 0 is the one ``__syncthreads()`` uses
NUM_BARRIERS = 16
_PTX = re.compile(r"\b(bar|barrier)((?:\.cta)?)\.(sync|arrive)((?:\.aligned)?)\s+[^;\"]*")


class NoNamedFix(Exception):
    """Why no named-barrier pair is proposed (said to the user)."""


@dataclass(frozen=True)
class Arms:
    """Stage 1: the separating ``if``'s producer and consumer arm (block labels) and the
    racing statements of each."""

    producer: int
    consumer: int
    producers: frozenset[int]
    consumers: frozenset[int]


def _side(tree: LabelTree, stmt: If, label: int) -> int | None:
    assert stmt.els is not None
    for arm in (stmt.then.label, stmt.els.label):
        if arm in tree.blk(label):
            return arm
    return None


def arms_of(kernel: Kernel, tree: LabelTree, verdict: Verdict) -> Arms:
    """Stage 1 (module docstring): the innermost ``if``/``else`` whose arms hold the two ends
    of every race, the writing arm being the producer; :class:`NoNamedFix` says why not."""
    ends: list[tuple[int, int]] = []  # (write, read) of each race
    for race in verdict.races:
        kinds = tuple(AccessKind(k) for k in race.kinds)
        if kinds == (AccessKind.WRITE, AccessKind.READ):
            ends.append((race.first, race.second))
        elif kinds == (AccessKind.READ, AccessKind.WRITE):
            ends.append((race.second, race.first))
        else:
            raise NoNamedFix(f"a {race.kind} race (lines {tree.line(race.first)} and {tree.line(race.second)}) "
                             f"has no producer and consumer")
    ifs = sorted((s for s in walk_stmts(kernel.body) if isinstance(s, If) and s.els is not None),
                 key=lambda s: -tree.depth(s.label))
    for s in ifs:
        sides = [(_side(tree, s, w), _side(tree, s, r)) for w, r in ends]
        if any(a is None or b is None or a == b for a, b in sides):
            continue
        writers = {a for a, _ in sides}
        if len(writers) > 1:
            raise NoNamedFix("data flows both ways between the arms of the if/else at line "
                             f"{tree.line(s.label)}: one arrive/sync pair orders one direction only (it needs "
                             "two barriers)")
        producer = writers.pop()
        assert producer is not None and s.els is not None
        consumer = s.els.label if producer == s.then.label else s.then.label
        return Arms(producer, consumer, frozenset(w for w, _ in ends), frozenset(r for _, r in ends))
    raise NoNamedFix("the racing statements are not a write in one arm and a read in the other arm of one if/else")


def _used_ids(kernel: Kernel) -> set[int]:
    from oracle.named.emulate import Emulator

    return {op.barrier for op in Emulator(kernel).run().ops} | {0}


def spelling(kernel: Kernel, op: str, barrier: int, count: int) -> str:
    """``op`` (``sync``/``arrive``) on ``barrier`` for ``count`` threads, written like the
    kernel's own first named barrier (``asm volatile("bar.sync 1, 64;");`` otherwise)."""
    for s in walk_stmts(kernel.body):
        if isinstance(s, NamedBarrier) and s.span is not None and s.span.start >= 0:
            text = kernel.source_text[s.span.start:s.span.end]
            m = _PTX.search(text)
            if m and "%" not in m.group(0):
                new = f"{m.group(1)}{m.group(2)}.{op}{m.group(4)} {barrier}, {count}"
                return text[:m.start()] + new + text[m.end():]
    return f'asm volatile("bar.{op} {barrier}, {count};");'


def _why_not(found: Search) -> str:
    """The search's failure, in words."""
    if not found.candidates:
        return ("no position pair has whole, disjoint warps on each side: a warp has both producer and "
                "consumer threads, or a group is not whole warps")
    parts = [f"{n} {why}" for why, n in found.rejected.most_common()]
    if found.pruned:
        parts.append(f"{found.pruned} skipped (the two groups would execute them a different number of times)")
    why = (f"none of the {found.candidates} candidate arrive/sync pairs is verified ({found.oracle_calls} checked by "
           f"the named-barrier oracle: {'; '.join(parts)})")
    return f"{why}; {found.lost}" if found.lost else why


@dataclass(frozen=True)
class NamedPair:
    """Stage 2's answer: ``arrive``/``sync`` (spelled as the kernel writes named barriers) on
    ``barrier`` for ``count`` threads after the labels ``anchors`` (arrive, sync), with their
    C(ℓ) in ``placement``; ``search`` is the search that chose it (its candidates and oracle
    calls)."""

    barrier: int
    count: int
    arrive: str
    sync: str
    anchors: tuple[int, int]
    placement: Placement
    search: Search

    @property
    def cost(self) -> Fraction:
        return self.placement.cost


def choose_pair(kernel: Kernel, verdict: Verdict, oracle: Oracle, *,
                lc: int | float | str | Fraction = DEFAULT_LC,
                ic: int | float | str | Fraction = DEFAULT_IC) -> NamedPair:
    """Stages 1 and 2 (module docstring): the least-cost named-barrier pair that removes the
    producer/consumer races of ``verdict``, each candidate kernel checked by ``oracle`` (the
    ``named`` checker); C(ℓ) with ``lc``/``ic`` as for Algorithm 1.  :class:`NoNamedFix` says
    why there is none."""
    if not verdict.races or verdict.divergences or verdict.unknowns or verdict.findings:
        raise NoNamedFix("only races are fixed with named barriers")
    tree = LabelTree(kernel)
    arms = arms_of(kernel, tree, verdict)
    free = [b for b in range(1, NUM_BARRIERS) if b not in _used_ids(kernel)]
    if not free:
        raise NoNamedFix("all 16 named barriers are in use")
    barrier = free[0]
    found = search(kernel, tree, CostModel(tree, lc, ic), (arms.producer, arms.consumer), set(arms.producers),
                   set(arms.consumers), barrier, oracle)
    if found.pair is None:
        raise NoNamedFix(_why_not(found))
    pair, count = found.pair, found.pair.count
    arrive, sync = spelling(kernel, "arrive", barrier, count), spelling(kernel, "sync", barrier, count)
    anchors = (pair.arrive.label, pair.sync.label)
    placement = Placement((Anchor(pair.arrive.label, pair.arrive.cost), Anchor(pair.sync.label, pair.sync.cost)))
    return NamedPair(barrier, count, arrive, sync, anchors, placement, found)


__all__ = ["Arms", "NoNamedFix", "NamedPair", "arms_of", "choose_pair", "spelling"]
