"""Race-pair queries of the SDV verifier: what one label pair's query is, and its answer.

Stage: the data of :meth:`oracle.sdv.verifier.SDVOracle._races` -- a label's accesses with the facts
the pair loop needs without building z3 terms (:class:`Side`), the query of one pair
(:class:`PairQuery`) and its answer, shared by every pair asking the same formula
(:class:`PairResult`).  Split from :mod:`oracle.sdv.verifier` so that the decision stage stays one
readable module.
"""

from __future__ import annotations

import itertools
from bisect import bisect_left
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

import z3

from kpl.placement import WARP_SIZE
from oracle.base import AccessKind, Witness, conflicts
from oracle.sdv.encode import int_const
from oracle.sdv.memory import (
    AccessSide,
    fields_compatible,
    same_element,
    value_facts,
    values_differ,
)
from oracle.sdv.state import Access

if TYPE_CHECKING:
    from oracle.sdv.executor import Executor

#: bound of the optional ``same_warp`` query in z3 resource units, ~0.2 s (hard bit-vector
#: addresses: one query of convolution rows needs past 4.8M, its others 0.4-0.7M, those of
#: the other sdk_kernels/ and microbench/ < 0.12M): a resource count, not a wall-clock time,
#: so that the fact does not depend on how loaded the machine is
SAME_WARP_RLIMIT = 700_000
#: a time bound as well, only as a safety net
SAME_WARP_QUERY_MS = 5000


def selector_free(query: z3.BoolRef, sides: tuple[AccessSide, AccessSide]) -> z3.ExprRef:
    """A pair's race query with its two selectors renamed.  z3 shares equal terms, so two pairs
    whose queries differ only by their selectors' names (arrays accessed at the same indices
    under the same conditions: ``key`` and ``val`` sorted in step) get one term, one id: an
    answer of unsatisfiable holds for both (``Machine.unsat_pairs``)."""
    return z3.substitute(query, *[(side.sel, z3.Int(f"__pair_sel{i}")) for i, side in enumerate(sides)
                                  if side.sel is not None])


@dataclass
class PairResult:
    """The answer to one pair query, shared by every label pair asking the same formula:
    ``unknown`` (the solver gave up) or a race with thread 1's and thread 2's kinds, the
    witness (thread 1 first) and the loop depths."""

    unknown: bool
    kind1: AccessKind = AccessKind.READ
    kind2: AccessKind = AccessKind.READ
    witness: Witness = Witness((0, 0, 0), (0, 0, 0))
    loop_depth: int | None = None
    depths: tuple[int, ...] = ()
    same_warp: bool = False        # every racing pair of the formula is two lanes of one warp


class Side:
    """One label's accesses of one array by one thread, with what the pair loop needs
    without building z3 terms: the access kinds, the constant epochs (None: some epoch is
    symbolic) and a signature per access (z3 ids of its predicate, index, epoch and
    iteration numbers; hash-consing makes equal ids equal terms).  Two pairs whose sides
    have equal signatures ask the same query up to the names of the selectors."""

    def __init__(self, insts: list[Access]) -> None:
        self.insts = insts
        self.kinds = frozenset(a.kind for a in insts)
        self.sigs = tuple((a.pred.get_id(), a.index.get_id(), a.epoch.get_id(), a.kind,
                           a.field, repr(a.view) if a.view is not None else None,
                           a.waits.get_id(), a.label if a.copy else None,
                           tuple((lp, it.get_id()) for lp, it in a.tags)) for a in insts)
        # the stored values: a write-write pair is a race only where they can differ (benign
        # writes), so such pairs also compare these (``SDVOracle._pair``); others need not
        self.vals = tuple(_value_id(a.value) for a in insts)
        #: every write's value can differ from any other (``Access.free_value``)
        self.free = all(a.free_value for a in insts if a.kind is AccessKind.WRITE)
        epochs = [int_const(a.epoch) for a in insts]
        # an async copy's access lasts past its epoch (``memory.epoch_order``): its side
        # pairs as if its epoch were symbolic
        consts = all(e is not None for e in epochs) and not any(a.copy for a in insts)
        self.epoch_of = [e if e is not None and consts else 0 for e in epochs]
        self.epochs: frozenset[int] | None = frozenset(self.epoch_of) if consts else None


def _value_id(value: object) -> object:
    """A hashable identity of a stored value: z3 ids (hash-consed), per component of a
    vector or struct value; None when the value is not known."""
    if isinstance(value, z3.ExprRef):
        return value.get_id()
    if isinstance(value, (tuple, list)):
        return tuple(_value_id(v) for v in value)
    if isinstance(value, dict):
        return tuple(sorted((k, _value_id(v)) for k, v in value.items()))
    return None if value is None else repr(value)


_CONFLICTING: dict[tuple[frozenset[AccessKind], frozenset[AccessKind]], bool] = {}


def kinds_conflict(k1: frozenset[AccessKind], k2: frozenset[AccessKind]) -> bool:
    """Some kind of ``k1`` conflicts with some kind of ``k2`` (cached: called per pair)."""
    r = _CONFLICTING.get((k1, k2))
    if r is None:
        r = any(conflicts(a, b) for a in k1 for b in k2)
        _CONFLICTING[(k1, k2)] = r
    return r


@dataclass
class LabelClass:
    """Labels of one array whose race queries are the same formula up to selector names:
    equal thread-1 and thread-2 sides (:attr:`Side.sigs`) and the same enclosing loops.
    (The stored values are not part of it: they refine only a write-write pair whose
    value-free query races, per member pair.)  Any pair of its members with the members of another class asks one
    query, so the pair loop runs over classes and maps the answer back to every member pair
    (``SDVOracle._races``): a barrier-free kernel of 20,000 ``A[tid] = A[tid] + k`` is one
    class, one query, not 2 * 10^8 label pairs (issue 28, item 4)."""

    members: list[int]      # labels, in text order
    positions: list[int]    # their positions in the array's label list (ascending)
    t1: Side                # thread 1's side of the first member (all members: equal sigs)
    t2: Side                # thread 2's side of the first member

    @property
    def first(self) -> int:
        return self.positions[0]

    @property
    def last(self) -> int:
        return self.positions[-1]


def label_classes(labels: list[int], sides: dict[int, tuple[Side, Side]],
                  loops: dict[int, tuple[int, ...]]) -> list[LabelClass]:
    """``labels`` (text order) grouped into :class:`LabelClass` es, ordered by first member."""
    by_key: dict[tuple[object, ...], LabelClass] = {}
    out: list[LabelClass] = []
    for pos, lab in enumerate(labels):
        t1, t2 = sides[lab]
        key = (t1.sigs, t2.sigs, loops[lab])
        cls = by_key.get(key)
        if cls is None:
            cls = by_key[key] = LabelClass([], [], t1, t2)
            out.append(cls)
        cls.members.append(lab)
        cls.positions.append(pos)
    return out


def pair_candidates(classes: list[LabelClass], same: bool) -> Iterator[tuple[int, int]]:
    """The class pairs (i, j) of one array that need a query: some member l1 of class i is
    not after some member l2 of class j in text order (thread 1 at l1, thread 2 at l2),
    their kinds conflict, and -- in ``same`` mode, where both epochs are constants -- they
    share an epoch (accesses of disjoint constant epochs are ordered by a barrier;
    ``SDVOracle._pair`` skips them).  :func:`member_pairs` lists the label pairs of a class
    pair.

    Indexed by epoch, so a long kernel with barriers between its statements pairs a class
    only with the classes of its own barrier intervals: linear in its length, not the n²
    pairs (a 20,000-line kernel of short intervals)."""
    by_epoch: dict[int, list[int]] = {}  # epoch -> classes whose thread-2 side is in it
    wild: list[int] = []                 # thread-2 sides with a symbolic epoch: every pair
    for j, c in enumerate(classes):
        if not c.t2.insts:
            continue
        if same and c.t2.epochs is not None:
            for e in c.t2.epochs:
                by_epoch.setdefault(e, []).append(j)
        else:
            wild.append(j)
    for i, c1 in enumerate(classes):
        if not c1.t1.insts:
            continue
        if same and c1.t1.epochs is not None:
            found = set(wild)
            for e in c1.t1.epochs:
                found.update(by_epoch.get(e, ()))
            later: Iterator[int] | range = iter(sorted(found))
        else:
            later = range(len(classes))
        for j in later:
            c2 = classes[j]
            if c2.t2.insts and c1.first <= c2.last and kinds_conflict(c1.t1.kinds, c2.t2.kinds):
                yield i, j


def member_pairs(c1: LabelClass, c2: LabelClass) -> Iterator[tuple[int, int]]:
    """The label pairs (l1 of ``c1``, l2 of ``c2``) with l1 not after l2 in text order, in
    text order of l1 then l2."""
    for p1, l1 in zip(c1.positions, c1.members, strict=True):
        for k in range(bisect_left(c2.positions, p1), len(c2.members)):
            yield l1, c2.members[k]


#: ``ask(l1, l2, thread-1 side, thread-2 side, values)``: the answer of one label pair's
#: query (``SDVOracle._pair``); ``values=False``: the value-free query of its class pair
Ask = Callable[[int, int, Side, Side, bool], "PairResult | None"]


def class_pair_results(c1: LabelClass, c2: LabelClass, same_class: bool, warp_sync: bool,
                       sides: dict[int, tuple[Side, Side]],
                       ask: Ask) -> Iterator[tuple[int, int, PairResult]]:
    """The racing (or undecided) label pairs of a class pair, each with its answer.  One
    value-free query for the class pair (the same formula for every member pair); only where
    it races are member pairs asked again with their stored values (benign writes: the
    values are not part of the class).  Under ``--warp-sync`` a label with itself is its own
    query (one instruction), so a class with itself asks up to two.

    Where the value-free answer's kinds -- the most severe ones it allows
    (``SDVOracle._decode_race``) -- are not two writes, no two writes of the class pair can
    collide; where one side's stored values can differ from anything (:attr:`Side.free`),
    two colliding writes always may store different values.  Either way the member pair's
    query with its values is the value-free formula and facts about its own stored values
    alone: one answer for all such member pairs, that of the first (a racy line among
    20,000: one query, not one per racing pair)."""
    asked: dict[bool, PairResult | None] = {}
    same: dict[bool, PairResult] = {}  # the member pairs' one answer, where values cannot matter
    formulas = 1 if not warp_sync or not same_class else min(2, len(c1.members))
    for l1, l2 in member_pairs(c1, c2):
        wl = warp_sync and l1 == l2
        if wl not in asked:
            asked[wl] = ask(l1, l2, c1.t1, c2.t2, False)
        free = asked[wl]
        if free is None:
            if len(asked) == formulas and all(v is None for v in asked.values()):
                return  # every member pair asks one of these formulas: none races
            continue
        if free.unknown:
            res: PairResult | None = free
        else:
            t1, t2 = sides[l1][0], sides[l2][1]
            alike = t1.free or t2.free or not (free.kind1 is AccessKind.WRITE
                                               and free.kind2 is AccessKind.WRITE)
            if alike and wl in same:
                res = same[wl]
            else:
                res = ask(l1, l2, t1, t2, True)
                if alike and res is not None:
                    same[wl] = res
        if res is not None:  # None: two writes of equal values (benign)
            yield l1, l2, res


@dataclass
class PairQuery:
    """The race query of one label pair, with what decoding its models needs."""

    l1: int                 # label of thread 1's access
    l2: int                 # label of thread 2's access
    a1: AccessSide          # thread 1's instances of l1, as one symbolic access
    a2: AccessSide          # thread 2's instances of l2
    k1: set[AccessKind]     # access kinds among l1's instances
    k2: set[AccessKind]     # access kinds among l2's instances
    depth: int | None       # number of shared loops when iteration numbers are exact, else None
    query: z3.BoolRef       # the conjunction asked

    def depth_is(self, j: int) -> z3.BoolRef:
        """The two accesses are in the same iteration of the j-1 outer shared loops and in
        different iterations of the j-th (j = 0: the same iteration of all)."""
        a1, a2 = self.a1, self.a2
        if j == 0:
            eqs = [a1.tags[i] == a2.tags[i] for i in range(self.depth or 0)]
            return z3.And(eqs) if eqs else z3.BoolVal(True)
        return z3.And([a1.tags[i] == a2.tags[i] for i in range(j - 1)] +
                      [a1.tags[j - 1] != a2.tags[j - 1]])

    def depth_of(self, model: z3.ModelRef) -> int:
        for j in range(1, (self.depth or 0) + 1):
            if not z3.is_true(model.eval(self.a1.tags[j - 1] == self.a2.tags[j - 1],
                                         model_completion=True)):
                return j
        return 0


def epoch_order(a1: AccessSide, a2: AccessSide, same_instance: z3.BoolRef | None) -> list[z3.BoolRef]:
    """Neither access is ordered before the other.  Plain accesses: the same barrier epoch.
    An OpenCL async copy's access (``Access.copy``) lasts from its call until the group's
    next ``wait_group_events`` completes it: a barrier without a wait completes nothing
    (the copy is asynchronous), so it is ordered before an access only with a wait between
    them (``waits`` smaller), and after one only with a barrier between the access and the
    call (epoch smaller).  Two copies are ordered only by a wait between them; the two
    work-items' parts of ONE execution of a copy (``same_instance``: the same statement in
    the same iterations of a block) copy different elements and never conflict."""
    if not a1.copy and not a2.copy:
        return [a1.epoch == a2.epoch]
    if a1.copy and a2.copy:
        out = [a1.waits == a2.waits]
        if same_instance is not None:
            out.append(z3.Not(same_instance))
        return out
    c, p = (a1, a2) if a1.copy else (a2, a1)
    return [c.epoch <= p.epoch, z3.Not(c.waits < p.waits)]


def pair_query(ex: Executor, l1: int, l2: int, s1: list[Access], s2: list[Access],
                shared: tuple[int, ...], exact_tags: bool,
                same_warp: z3.BoolRef | None, benign: bool = True) -> PairQuery | None:
    """The race query of a label pair (None: no conflicting kinds).  ``s1``/``s2`` are
    already restricted to common epochs where epochs are constants; ``benign``: two
    writes race only if they can store different values.

    Both accesses enabled, the same location, the same epoch (``same`` mode), conflicting
    kinds, and under ``--warp-sync`` not two threads of one warp unless in one instruction
    instance and both writing."""
    kinds1 = {a.kind for a in s1}
    kinds2 = {a.kind for a in s2}
    if not any(conflicts(a, b) for a in kinds1 for b in kinds2):
        return None
    d = len(shared)
    levels_needed = d if exact_tags else 0
    one_copy = ex.same and l1 == l2 and s1[0].copy  # a copy's two parts in one block
    if (same_warp is not None or one_copy) and l1 == l2:
        levels_needed = max(levels_needed, min(len(a.tags) for a in s1 + s2))
    a1 = AccessSide.of(ex.sides, s1, levels_needed, f"sel{l1}")
    a2 = AccessSide.of(ex.sides, s2, levels_needed, f"sel{l2}")
    same_instance = None
    if one_copy:
        n = min(len(a.tags) for a in s1 + s2)
        same_instance = z3.And([a1.tags[j] == a2.tags[j] for j in range(n)])
    # same block: block-barrier epochs; across blocks: grid-barrier epochs (0 without any)
    conds = [a1.pred, a2.pred, same_element(a1, a2), *epoch_order(a1, a2, same_instance)]
    k1 = {a.kind for a in s1}
    k2 = {a.kind for a in s2}
    if len(k1) > 1 or len(k2) > 1:
        conds.append(z3.Or(a1.kind_is(AccessKind.WRITE), a2.kind_is(AccessKind.WRITE),
                           a1.kind != a2.kind))
    fields = fields_compatible(a1, a2)
    if fields is not None:
        conds.append(fields)
    if benign and AccessKind.WRITE in k1 and AccessKind.WRITE in k2:
        # two writes race only if they can store different values (read-write never benign)
        differ = values_differ(a1, a2)
        if differ is not None:
            conds.append(z3.Or(z3.Not(z3.And(a1.kind_is(AccessKind.WRITE),
                                              a2.kind_is(AccessKind.WRITE))), differ))
            conds += value_facts(a1, a2)
    if same_warp is not None:
        if l1 == l2:
            n = min(len(a.tags) for a in s1 + s2)
            same_inst = z3.And([a1.tags[j] == a2.tags[j] for j in range(n)] +
                               [a1.kind_is(AccessKind.WRITE), a2.kind_is(AccessKind.WRITE)])
            conds.append(z3.Or(z3.Not(same_warp), same_inst))
        else:
            conds.append(z3.Not(same_warp))
    return PairQuery(l1, l2, a1, a2, k1, k2, d if exact_tags else None, z3.And(conds))


def same_warp_only(ex: Executor, pq: PairQuery, model: z3.ModelRef) -> bool:
    """The ``same_warp`` fact of a racing pair query (``model``: its witness): is every
    racing pair two lanes of one warp?  True without a query when the block is one warp
    (any two of its threads are lanes of it); False when the witness already crosses warps;
    otherwise one more query (the race with the threads in different warps) -- a solver
    ``unknown`` counts as "crosses"."""
    if not ex.same:
        return False
    if not ex.kernel.launch.symbolic and ex.kernel.launch.threads_per_block <= WARP_SIZE:
        return True
    sw = ex.same_warp()
    if not z3.is_true(model.eval(sw, model_completion=True)):
        return False
    # bounded; a solver that gives up claims nothing (only __syncthreads() fixes: sound)
    r, _ = ex.q.check(pq.query, z3.Not(sw), limit_ms=SAME_WARP_QUERY_MS,
                      rlimit=SAME_WARP_RLIMIT)
    return r == z3.unsat


#: most severe first: a write races with everything, an atomic with plain accesses
_SEVERITY = {AccessKind.WRITE: 0, AccessKind.ATOMIC: 1, AccessKind.READ: 2}


def kind_order(k1: set[AccessKind],
                k2: set[AccessKind]) -> list[tuple[AccessKind, AccessKind]]:
    """The conflicting kind pairs of two label sides, most severe first."""
    pairs = [(a, b) for a, b in itertools.product(sorted(k1), sorted(k2)) if conflicts(a, b)]
    return sorted(pairs, key=lambda p: (_SEVERITY[p[0]], _SEVERITY[p[1]]))


__all__ = ["Ask", "LabelClass", "PairQuery", "PairResult", "Side", "class_pair_results",
           "kind_order", "kinds_conflict",
           "label_classes", "member_pairs", "pair_candidates", "same_warp_only",
           "SAME_WARP_QUERY_MS", "SAME_WARP_RLIMIT"]
