"""The least-cost ``bar.arrive``/``bar.sync`` pair: candidate positions, their cost, and the
cost-ordered search checked by the named-barrier oracle ([WEFT]; issue 16, item 2).

:mod:`autosync.algorithm.named_synthesis` finds the producer arm and the consumer arm of a
warp-specialised ``if``/``else`` and the racing statements; this module chooses WHERE the pair
goes.  A *position* is a label ℓ of the arm (the arm's start ℓ_s, any statement of it, inside
loops and nested blocks too); the barrier goes right after ℓ, exactly where INSERTBARRIERS
([AutoSync] Alg. 1, line 20; :func:`kpl.transform.insert_barriers`) puts a ``__syncthreads()``
and where :mod:`autosync.render` writes it.  A position costs C(ℓ) = LC^|loops(ℓ)| ×
IC^|conds(ℓ)|, the one cost model of :class:`autosync.algorithm.cost.CostModel` with the same LC and IC
as ``fix`` gives Algorithm 1 -- a barrier in a loop runs more often, so it costs more.  A pair
costs C(arrive) + C(sync).

**Candidate space.**  One emulation of the CTA with a probe after every position
(:func:`probe`) gives, per position, the threads that execute it and how often.  A pair is a
candidate when its arrive is executed by a non-empty group P and its sync by a non-empty group
C, disjoint, each whole warps (``bar`` counts whole warps on sm_6x and below; PTX wants the
count a multiple of the warp size); the count is |P| + |C| and the id a free one.

**Search.**  Candidates are tried in order of cost (ties: the arrive nearest after the last
racing write, the sync nearest before the first racing read, as a developer writes them); the
first one that the named-barrier oracle verifies and that loses no stage (below) is returned.

*Optimality.*  Every candidate cheaper than the returned pair was either tried and rejected,
or skipped by the pruning rule; so the returned pair is a least-cost accepted candidate,
provided the pruning rule skips only pairs the oracle rejects.  The rule: skip the pair
unless every thread of P executes the arrive k times and every thread of C the sync k times,
for one k ≥ 1.  Proof that a skipped pair is rejected: the id is free, so the pair's
operations are the only registrations on it.  The oracle schedules threads with equal
barrier sequences as one unit, and a unit lies wholly in P or wholly in C.  If it verifies,
every generation completed (a pending one is a deadlock or left-over arrivals) and no unit
registered twice in one (an over-arrival), so each generation holds distinct units whose
sizes sum to |P| + |C|, the size of ALL units of P ∪ C: each unit registers exactly once per
generation, and with G generations every thread executes its operation exactly G times --
the rule's k.  tests/test_named_bruteforce.py checks both halves on small kernels: the
returned cost equals the least cost over every candidate verified by the oracle, and every
skipped pair is rejected by it.

**Lost stages.**  A pair can be race-free only because it discards data: in a ring buffer
with no "slot free" barrier, an arrive after the producer's loop makes every stage but the
last overwritten before it is published.  A candidate is refused when a producer thread
writes an address that the consumer's racing reads use twice from one statement with no
read of it and no arrive in between (:func:`lost_stage`); what the kernel needs is a second
barrier in the other direction (double buffering), which one pair cannot be.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from fractions import Fraction

from autosync.algorithm.cost import CostModel
from kpl.ast import Barrier, Block, Const, Kernel, Loop, NamedBarrier, Stmt, child_blocks, walk_stmts
from kpl.labels import LabelTree
from kpl.placement import Placement
from kpl.transform import insert_barriers
from oracle.base import AccessKind, Oracle

WARP = 32
#: the search gives up after this many oracle calls (a kernel with huge arms)
MAX_CALLS = 2000
#: a tie-break rank beyond every in-order distance: positions on the wrong side come last
_FAR = 1 << 20


@dataclass(frozen=True)
class Position:
    """A barrier right after ``label``: its cost C(ℓ), the threads that execute it and how
    often each does (``times`` = -1 when they differ), and its tie-break ``rank``."""

    label: int
    cost: Fraction
    threads: frozenset[int]
    times: int
    rank: int


@dataclass(frozen=True)
class Pair:
    """``bar.arrive`` after ``arrive.label``, ``bar.sync`` after ``sync.label``, for ``count``."""

    arrive: Position
    sync: Position

    @property
    def count(self) -> int:
        return len(self.arrive.threads) + len(self.sync.threads)

    @property
    def cost(self) -> Fraction:
        return self.arrive.cost + self.sync.cost


@dataclass
class Search:
    """The outcome of :func:`search`."""

    pair: Pair | None = None
    kernel: Kernel | None = None  # the verified candidate kernel (pair inserted)
    oracle_calls: int = 0
    candidates: int = 0  # pairs in the candidate space
    pruned: int = 0  # skipped by the execution-count rule (module docstring)
    rejected: Counter[str] = field(default_factory=Counter)  # why tried pairs failed
    lost: str | None = None  # the first lost-stage explanation met


# ----------------------------------------------------------------------------- positions


def arm_positions(tree: LabelTree, arm: int) -> list[int]:
    """Placeable labels strictly inside the arm block ``arm`` (its ℓ_s included), text order."""
    return [lab for lab in tree.labels() if arm in tree.blk(lab) and tree.placeable(lab)]


def _blocks(kernel: Kernel) -> Iterable[tuple[Block | None, list[Stmt]]]:
    yield kernel.body, kernel.body.stmts
    for stmt in walk_stmts(kernel.body):
        for blk in child_blocks(stmt):
            yield blk, blk.stmts
        if isinstance(stmt, Loop):
            yield None, stmt.latch


def with_named(kernel: Kernel, ops: Iterable[tuple[int, str, int, int]]) -> tuple[Kernel, dict[int, int]]:
    """A copy of ``kernel`` with ``bar.<op> barrier, count`` right after each label
    (``(label, op, barrier, count)``), placed as INSERTBARRIERS places a barrier; and the map
    anchor -> the new statement's label.  The input is not mutated."""
    wanted = list(ops)
    copy, mapping = insert_barriers(kernel, Placement.of(lab for lab, *_ in wanted), check_placeable=False)
    by_anchor = {lab: (op, bar, cnt) for lab, op, bar, cnt in wanted}
    for _, stmts in _blocks(copy):
        for i, s in enumerate(stmts):
            if isinstance(s, Barrier) and s.label in mapping:
                op, bar, cnt = by_anchor[mapping[s.label]]
                stmts[i] = NamedBarrier(op, Const(bar), Const(cnt), label=s.label, synthetic=True)
    copy.uses_named_barriers = True
    return copy, {anchor: new for new, anchor in mapping.items()}


def probe(kernel: Kernel, labels: list[int]) -> dict[int, Counter[int]]:
    """label -> how often each thread executes a statement right after it (one emulation of
    CTA 0 with an ``arrive`` probe after every label; probes change no value or branch)."""
    from oracle.named.emulate import Emulator

    copy, new = with_named(kernel, ((lab, "arrive", 0, 0) for lab in labels))
    progs = Emulator(copy).run()
    anchor_of = {v: k for k, v in new.items()}
    out: dict[int, Counter[int]] = {lab: Counter() for lab in labels}
    for ev in progs.ops:
        if ev.label in anchor_of:
            out[anchor_of[ev.label]].update(ev.tids)
    return out


def positions(tree: LabelTree, costs: CostModel, arm: int, executed: dict[int, Counter[int]],
              pivot: int, before: bool) -> list[Position]:
    """The positions of ``arm``, ranked by their distance from ``pivot`` in text order: after
    it for an arrive (``before=False``), before it for a sync (``before=True``)."""
    out = []
    for lab in arm_positions(tree, arm):
        runs = executed.get(lab, Counter())
        times = set(runs.values())
        # after ℓ is before the pivot iff ℓ ≺ pivot; after the pivot iff pivot ⪯ ℓ
        dist = tree.order(pivot) - tree.order(lab) - 1 if before else tree.order(lab) - tree.order(pivot)
        rank = dist if dist >= 0 else _FAR - dist
        out.append(Position(lab, costs.cost(lab), frozenset(runs), times.pop() if len(times) == 1 else -1, rank))
    return out


def _whole_warps(threads: frozenset[int]) -> bool:
    warps = {t // WARP for t in threads}
    return len(threads) == WARP * len(warps)


def candidates(arrives: list[Position], syncs: list[Position]) -> list[Pair]:
    """The candidate space (module docstring), cheapest first, ties by rank."""
    pairs = [Pair(a, s) for a in arrives for s in syncs
             if a.threads and s.threads and not (a.threads & s.threads)
             and _whole_warps(a.threads) and _whole_warps(s.threads)]
    return sorted(pairs, key=lambda p: (p.cost, p.arrive.rank + p.sync.rank, p.arrive.rank,
                                        p.arrive.label, p.sync.label))


def executions_match(pair: Pair) -> bool:
    """The pruning rule: every thread executes its operation the same k ≥ 1 times."""
    return pair.arrive.times >= 1 and pair.arrive.times == pair.sync.times


# ----------------------------------------------------------------------------- lost stages


def lost_stage(kernel: Kernel, tree: LabelTree, pair: Pair, producers: set[int],
               consumers: set[int]) -> str | None:
    """Why ``pair`` discards a stage (module docstring), or None.  Emulates ``kernel`` with
    the pair inserted (barrier 0 is fine: only the program order of each thread matters)."""
    from oracle.named.emulate import Emulator

    copy, new = with_named(kernel, [(pair.arrive.label, "arrive", 0, pair.count),
                                    (pair.sync.label, "sync", 0, pair.count)])
    progs = Emulator(copy).run()
    arrive = new[pair.arrive.label]
    published: list[list[int]] = []  # per thread: arrives executed before its k-th op
    for ops in progs.thread_ops:
        seen, counts = 0, [0]
        for eid in ops:
            seen += progs.ops[eid].label == arrive
            counts.append(seen)
        published.append(counts)
    read = {(ev.mem.name, a) for ev in progs.accesses if ev.label in consumers and ev.kind is AccessKind.READ
            for a in (ev.addrs if isinstance(ev.addrs, list) else [ev.addrs] * len(ev.tids))}
    last: dict[tuple[int, str, int], tuple[int, int]] = {}  # (thread, array, addr) -> (label, arrives)
    for ev in progs.accesses:
        addrs = ev.addrs if isinstance(ev.addrs, list) else [ev.addrs] * len(ev.tids)
        for t, a, seg in zip(ev.tids, addrs, ev.segs, strict=True):
            key = (t, ev.mem.name, a)
            if (ev.mem.name, a) not in read:
                continue
            if ev.kind is not AccessKind.WRITE or ev.label not in producers:
                last.pop(key, None)  # read (or written elsewhere) since: the value was used
                continue
            mark = (ev.label, published[t][seg])
            if last.get(key) == mark:
                return (f"the producer writes {ev.mem.name}[{a}] again (line {tree.line(ev.label)}) before "
                        f"an arrive publishes the first value: the buffer is reused, so one pair loses a "
                        f"stage; it needs a second barrier the other way (double buffering)")
            last[key] = mark
    return None


# ----------------------------------------------------------------------------- the search


def search(kernel: Kernel, tree: LabelTree, costs: CostModel, arms: tuple[int, int], producers: set[int],
           consumers: set[int], barrier: int, oracle: Oracle, *, max_calls: int = MAX_CALLS) -> Search:
    """The least-cost candidate pair that ``oracle`` verifies and that loses no stage, tried in
    cost order (module docstring); ``arms`` = (producer arm, consumer arm) block labels."""
    p_arm, c_arm = arms
    executed = probe(kernel, arm_positions(tree, p_arm) + arm_positions(tree, c_arm))
    last_write = max(producers, key=tree.order)
    first_read = min(consumers, key=tree.order)
    pairs = candidates(positions(tree, costs, p_arm, executed, last_write, before=False),
                       positions(tree, costs, c_arm, executed, first_read, before=True))
    out = Search(candidates=len(pairs))
    for pair in pairs:
        if not executions_match(pair):
            out.pruned += 1
            continue
        if out.oracle_calls >= max_calls:
            out.rejected[f"stopped after {max_calls} oracle calls"] += 1
            break
        candidate, _ = with_named(kernel, [(pair.arrive.label, "arrive", barrier, pair.count),
                                           (pair.sync.label, "sync", barrier, pair.count)])
        out.oracle_calls += 1
        verdict = oracle.check(candidate)
        if not verdict.verified:
            kinds = sorted({f.kind for f in verdict.findings} | ({"race"} if verdict.races else set())
                           | ({"unknown"} if verdict.unknowns else set()))
            out.rejected[", ".join(kinds) or "not verified"] += 1
            continue
        lost = lost_stage(kernel, tree, pair, producers, consumers)
        if lost is not None:
            out.lost = out.lost or lost
            out.rejected["lost stage"] += 1
            continue
        out.pair, out.kernel = pair, candidate
        break
    return out


__all__ = ["MAX_CALLS", "Pair", "Position", "Search", "arm_positions", "candidates", "executions_match",
           "lost_stage", "positions", "probe", "search", "with_named"]
