"""``sdv``: the bundled static verifier -- races and barrier divergence under SDV semantics.

The AutoSync paper ([AutoSync], Sec. V) uses GPUVerify as its oracle; this is our own
implementation of the same idea, installed by pip with the rest: the *two-thread reduction*
with predicated lock-step execution ([WarpsAtomics] Sec. 2.3, [AutoSync] Fig. 9), encoded
for z3.
The symbolic execution lives in :mod:`oracle.sdv_exec`; this module runs it, turns the access
log into race queries and the barrier log into divergence queries, and builds the
:class:`~oracle.base.Verdict`.

What is decided, and how:

* **Races** ([AutoSync] Sec. III-A; [WarpsAtomics] Def. 2.2): for every pair of leaf labels
  ⟨ℓ, ℓ'⟩ and array, one query asks for two distinct threads t1 at ℓ and t2 at ℓ' whose
  accesses are both enabled, hit the same element, are not both reads, not both atomic, and
  lie in the same barrier epoch (shared memory and same-block global memory).  All dynamic
  instances of ℓ (loop unrolling, the A/B iterations of the loop abstraction) are folded into
  the one query with a selector variable, so the number of queries is the number of label
  pairs that could conflict, not the number of instances.  Global memory is also checked for
  threads of two different blocks, where barriers order nothing.  Every racing pair is
  reported, with a witness from the model.
* **Divergence**: a barrier whose predicates for t1 and t2 (same block) can differ.  This is
  semantic: launch bounds, ``__requires`` and the actual guard values decide it.
* **Warp-synchronous mode** (``--warp-sync=N``, [WarpsAtomics] Sec. 3, the "two-pass" view):
  two threads of one warp run each instruction together, so they can only race inside ONE
  instruction instance, and only write/write on the same element (reads of an instruction
  happen before its writes); accesses of different statements or instances never race.
* **Optional facts**: ``Race.loop_depth`` (0 = same iteration of all shared loops, j = the
  accesses are in different iterations of the j-th shared loop, outermost = 1) comes from the
  iteration numbers of the two instances; ``Race.loop_depths`` lists every depth at which
  the race occurs (found by re-querying with the found depths excluded) and
  ``Race.cross_block`` says it also happens between threads of two blocks.

Anything the encoder cannot model, and every z3 ``unknown``, becomes an
:class:`~oracle.base.Unknown` -- never a silent pass.  ``timeout`` (seconds) bounds the whole
check; when it is reached :class:`~oracle.base.OracleError` with ``timeout=True`` is raised.

Why one piece over 400 lines: this is the decision stage -- turning the two runs' logs into
the verdict (race queries per label pair, their decoding, divergence queries, the cross-block
half and its cache); each step is a named method, and how locations compare is left to
:mod:`oracle.sdv_memory`.
"""

from __future__ import annotations

import dataclasses
import itertools
import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

import z3

from kpl import ast as K
from kpl.ast import Kernel, Space
from kpl.labels import LabelTree
from oracle.base import (
    AccessKind,
    Divergence,
    Finding,
    OracleBase,
    Race,
    Unknown,
    Verdict,
    Witness,
    conflicts,
)
from oracle.sdv_exec import Executor, QueryEngine
from oracle.sdv_memory import (
    Access,
    AccessSide,
    fields_compatible,
    same_element,
    shown_index,
    values_differ,
)
from oracle.sdv_state import stmt_exprs


class SDVOracle(OracleBase):
    """The bundled static verifier (``--oracle sdv``).

    ``timeout``: seconds for the whole check (z3 queries get the remaining time; reaching it
    raises :class:`OracleError` with ``timeout=True``).  ``max_unroll``: the most iterations
    a loop is unrolled exactly before the loop abstraction is used.  Options:
    ``query_timeout_ms`` (default 20000) and ``rlimit`` (z3 resource limit per query)."""

    name = "sdv"

    def __init__(self, timeout: float | None = None, max_unroll: int = 64,
                 **options: Any) -> None:
        self.timeout = timeout
        self.max_unroll = max_unroll
        self.query_ms = int(options.get("query_timeout_ms", 20000))
        self.rlimit = options.get("rlimit")
        self.unroll_budget = int(options.get("unroll_budget", 512))
        self.cross_cache = bool(options.get("cross_cache", True))
        #: two writes storing the same value are no race (GPUVerify's default; --no-benign)
        self.benign = bool(options.get("benign", True))
        self._cross: OrderedDict[tuple[Any, ...], _CrossResult] = OrderedDict()

    # ------------------------------------------------------------------ entry point

    def check(self, kernel: Kernel) -> Verdict:
        start = time.monotonic()
        deadline = start + self.timeout if self.timeout is not None else None
        tree = LabelTree(kernel)
        verdict = Verdict()
        engine = QueryEngine(deadline, self.query_ms, self.rlimit)
        found: dict[tuple[int, int, str], Race] = {}

        same = Executor(kernel, "same", engine, max_unroll=self.max_unroll,
                        unroll_budget=self.unroll_budget)
        same.run()
        self._divergences(same, tree, verdict)
        for race in self._races(same, tree, kernel, verdict):
            found[race.key] = race
        self._collect_unknowns(same, tree, verdict)

        if kernel.launch.blocks > 1 and self._global_writes(kernel):
            cres = self._cross_part(kernel, tree, engine)
            verdict.unknowns.extend(Unknown(reason, label, self._line(tree, label))
                                    for reason, label in cres.query_unknowns)
            for race in cres.races:
                old = found.get(race.key)
                depths = old.loop_depths if old is not None else ()
                found[race.key] = Race(race.first, race.second, race.array, race.kinds,
                                       race.space, race.witness, None, depths, True)
            self._collect_unknowns_list(cres.exec_unknowns, tree, verdict)

        named = sorted(set(same.named))
        if named or kernel.uses_named_barriers:
            verdict.findings.append(Finding(
                "named-barrier",
                "kernel uses named barriers (bar.sync/bar.arrive), which sdv does not model; "
                "check it with --oracle named",
                tuple(named)))
        verdict.races = sorted(found.values(), key=lambda r: (tree.order(r.first),
                                                              tree.order(r.second), r.array))
        verdict.queries = engine.queries
        verdict.seconds = time.monotonic() - start
        return verdict

    # ------------------------------------------------------------------ helpers

    @staticmethod
    def _global_writes(kernel: Kernel) -> bool:
        for s in K.walk_stmts(kernel.body):
            if isinstance(s, K.Assign) and isinstance(s.target, K.MemElem) \
                    and s.target.mem.space == Space.GLOBAL:
                return True
            for e in stmt_exprs(s):
                for x in K.walk_expr(e):
                    if isinstance(x, K.Atomic) and x.mem.space == Space.GLOBAL:
                        return True
        return False

    @staticmethod
    def _line(tree: LabelTree, label: int | None) -> int | None:
        if label is None or label not in tree.nodes:
            return None
        return tree.line(label)

    def _cross_part(self, kernel: Kernel, tree: LabelTree, engine: QueryEngine) -> _CrossResult:
        """The cross-block half of :meth:`check`, answered from the cache when a kernel with
        the same barrier-free structure was checked before by this oracle.

        Why the cache is exact: in ``cross`` mode the two threads are in different blocks,
        so barriers order nothing -- the executor never looks at epochs (race queries add
        the epoch equation only in ``same`` mode), logs no barrier hits, and barrier-related
        loop facts (``LoopInfo.has_barrier``, the consecutive-iteration and epoch
        constraints of the loop abstraction) are used only in ``same`` mode.  A barrier
        statement changes no predicate, variable, access, budget or query.  So the cross
        part is a function of the kernel with its plain barriers removed (labels of the other
        statements are kept by INSERTBARRIERS, [AutoSync] Sec. III-D, and their relative
        order in the label tree too), and the candidate kernels of one synthesis run -- which
        differ only by inserted barriers -- share it.  Results with a solver ``unknown`` are
        not cached (a second try could succeed); lines of unknowns are recomputed from the
        current kernel's tree."""
        key = _barrier_free_key(kernel, self.max_unroll, self.unroll_budget) \
            if self.cross_cache else None
        if key is not None and key in self._cross:
            self._cross.move_to_end(key)
            return self._cross[key]
        engine.solver.reset()
        if engine.rlimit:
            engine.solver.set("rlimit", engine.rlimit)
        cross = Executor(kernel, "cross", engine, max_unroll=self.max_unroll,
                         unroll_budget=self.unroll_budget)
        cross.run()
        scratch = Verdict()
        races = self._races(cross, tree, kernel, scratch)
        res = _CrossResult(races, [(u.reason, u.label) for u in scratch.unknowns],
                           list(cross.unknowns))
        if key is not None and not scratch.unknowns:
            self._cross[key] = res
            while len(self._cross) > _CROSS_CACHE_SIZE:
                self._cross.popitem(last=False)
        return res

    def _collect_unknowns(self, ex: Executor, tree: LabelTree, verdict: Verdict) -> None:
        self._collect_unknowns_list(ex.unknowns, tree, verdict)

    def _collect_unknowns_list(self, unknowns: list[tuple[str, int | None]], tree: LabelTree,
                               verdict: Verdict) -> None:
        seen = {(u.reason, u.label) for u in verdict.unknowns}
        for reason, label in unknowns:
            if (reason, label) not in seen:
                seen.add((reason, label))
                verdict.unknowns.append(Unknown(reason, label, self._line(tree, label)))

    def _witness(self, ex: Executor, m: z3.ModelRef, idx: z3.BitVecRef | None,
                 swap: bool = False) -> Witness:
        def ids(xs: tuple[Any, ...]) -> tuple[int, int, int]:
            v = [m.eval(x, model_completion=True).as_long() for x in xs]
            return (v[0], v[1], v[2])

        t1, t2 = ids(ex.tid[0]), ids(ex.tid[1])
        b1, b2 = ids(ex.bid[0]), ids(ex.bid[1])
        index = None
        if idx is not None:
            val = m.eval(idx, model_completion=True)
            if z3.is_bv_value(val):
                index = val.as_signed_long()  # type: ignore[attr-defined]
        if swap:
            t1, t2, b1, b2 = t2, t1, b2, b1
        return Witness(t1, t2, b1, b2, index)

    def _divergences(self, ex: Executor, tree: LabelTree, verdict: Verdict) -> None:
        by_label: dict[int, list[tuple[z3.BoolRef, z3.BoolRef]]] = {}
        for hit in ex.barriers:
            p1, p2 = hit.preds
            if p1.eq(p2) or (z3.is_true(p1) and z3.is_true(p2)):
                by_label.setdefault(hit.label, [])
                continue
            by_label.setdefault(hit.label, []).append((p1, p2))
        for label in sorted(by_label, key=lambda lab: tree.order(lab) if lab in tree.nodes
                            else lab):
            hits = by_label[label]
            if not hits:
                continue
            r, m = ex.q.check(z3.Or([p1 != p2 for p1, p2 in hits]))
            if r == z3.sat and m is not None:
                verdict.divergences.append(Divergence(label, self._witness(ex, m, None)))
            elif r == z3.unknown:
                verdict.unknowns.append(Unknown("solver gave up on the divergence query for "
                                                "this barrier", label, self._line(tree, label)))

    def _races(self, ex: Executor, tree: LabelTree, kernel: Kernel,
               verdict: Verdict) -> list[Race]:
        groups: dict[str, dict[int, tuple[list[Access], list[Access]]]] = {}
        mems: dict[str, K.Memory] = {}
        for a in ex.accesses:
            if a.label not in tree.nodes:
                continue
            mems[a.mem.name] = a.mem
            per = groups.setdefault(a.mem.name, {}).setdefault(a.label, ([], []))
            per[a.thread].append(a)
        warp = kernel.launch.warp_sync if ex.same else None
        same_warp: z3.BoolRef | None = None
        if warp:
            same_warp = z3.UDiv(ex.linear_tid(0), warp) == z3.UDiv(ex.linear_tid(1), warp)
        out: list[Race] = []
        for name in sorted(groups):
            labels = sorted(groups[name], key=tree.order)
            for i, l1 in enumerate(labels):
                for l2 in labels[i:]:
                    s1 = groups[name][l1][0]
                    s2 = groups[name][l2][1]
                    if not s1 or not s2:
                        continue
                    race = self._pair(ex, tree, mems[name], l1, l2, s1, s2, same_warp, verdict)
                    if race is not None:
                        out.append(race)
        return out

    def _pair(self, ex: Executor, tree: LabelTree, mem: K.Memory, l1: int, l2: int,
              s1: list[Access], s2: list[Access], same_warp: z3.BoolRef | None,
              verdict: Verdict) -> Race | None:
        """Do labels ``l1`` (thread 1) and ``l2`` (thread 2) race on ``mem``?  Build the one
        query for the pair, ask it, compute the loop depths and decode the witness."""
        pq = self._pair_query(ex, tree, l1, l2, s1, s2, same_warp, self.benign)
        if pq is None:
            return None
        r, m = ex.q.check(pq.query)
        if r == z3.unknown:
            verdict.unknowns.append(Unknown(
                f"solver gave up on the race query for '{mem.name}'", l1, self._line(tree, l1)))
            return None
        if r != z3.sat or m is None:
            return None
        loop_depth, depths, best = self._loop_depths(ex, pq, m)
        return self._decode_race(ex, tree, mem, pq, best, loop_depth, depths)

    @staticmethod
    def _pair_query(ex: Executor, tree: LabelTree, l1: int, l2: int, s1: list[Access],
                    s2: list[Access], same_warp: z3.BoolRef | None,
                    benign: bool = True) -> _PairQuery | None:
        """The race query of a label pair (None: no conflicting kinds or no common epoch).

        Both accesses enabled, the same location, the same epoch (``same`` mode), conflicting
        kinds, and under ``--warp-sync`` not two threads of one warp unless in one instruction
        instance and both writing."""
        kinds1 = {a.kind for a in s1}
        kinds2 = {a.kind for a in s2}
        if not any(conflicts(a, b) for a in kinds1 for b in kinds2):
            return None
        if ex.same and all(z3.is_int_value(a.epoch) for a in s1 + s2):
            e1 = {a.epoch.as_long() for a in s1}  # type: ignore[attr-defined]
            e2 = {a.epoch.as_long() for a in s2}  # type: ignore[attr-defined]
            common = e1 & e2
            if not common:
                return None
            s1 = [a for a in s1 if a.epoch.as_long() in common]  # type: ignore[attr-defined]
            s2 = [a for a in s2 if a.epoch.as_long() in common]  # type: ignore[attr-defined]
        shared = tree.shared_loops(l1, l2)
        d = len(shared)
        exact_tags = ex.same and all(
            len(a.tags) >= d and tuple(lp for lp, _ in a.tags[:d]) == shared for a in s1 + s2)
        levels_needed = d if exact_tags else 0
        if same_warp is not None and l1 == l2:
            levels_needed = max(levels_needed, min(len(a.tags) for a in s1 + s2))
        a1 = AccessSide(s1, levels_needed, f"sel{l1}")
        a2 = AccessSide(s2, levels_needed, f"sel{l2}")
        conds = [a1.pred, a2.pred, same_element(a1, a2)]
        if ex.same:
            conds.append(a1.epoch == a2.epoch)
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
        if same_warp is not None:
            if l1 == l2:
                n = min(len(a.tags) for a in s1 + s2)
                same_inst = z3.And([a1.tags[j] == a2.tags[j] for j in range(n)] +
                                   [a1.kind_is(AccessKind.WRITE), a2.kind_is(AccessKind.WRITE)])
                conds.append(z3.Or(z3.Not(same_warp), same_inst))
            else:
                conds.append(z3.Not(same_warp))
        return _PairQuery(l1, l2, a1, a2, k1, k2, d if exact_tags else None, z3.And(conds))

    @staticmethod
    def _loop_depths(ex: Executor, pq: _PairQuery,
                     m: z3.ModelRef) -> tuple[int | None, tuple[int, ...], z3.ModelRef]:
        """(loop_depth, every depth the pair races at, the model at the smallest depth):
        re-query with the found depths excluded until each of the d + 1 is found or ruled
        out.  (None, (), m) when the iteration numbers are not exact."""
        d = pq.depth
        if d is None:
            return None, (), m
        if d == 0:
            return 0, (0,), m
        models = {pq.depth_of(m): m}
        while len(models) < d + 1:
            r2, m2 = ex.q.check(pq.query, z3.Not(z3.Or([pq.depth_is(j) for j in models])))
            if r2 != z3.sat or m2 is None:
                break
            models[pq.depth_of(m2)] = m2
        depths = tuple(sorted(models))
        return depths[0], depths, models[depths[0]]

    def _decode_race(self, ex: Executor, tree: LabelTree, mem: K.Memory, pq: _PairQuery,
                     best: z3.ModelRef, loop_depth: int | None,
                     depths: tuple[int, ...]) -> Race:
        """The :class:`Race` of a satisfiable pair query: kinds, text order, witness."""
        a1, a2 = pq.a1, pq.a2
        c1, c2 = a1.chosen(best), a2.chosen(best)
        if len(pq.k1) > 1 or len(pq.k2) > 1:
            # a statement that reads AND writes the array (``s[i] += s[j]``): which of its
            # accesses the model picks is up to z3 and changes with anything the solver did
            # before; report the most severe feasible kinds instead (deterministic: decided
            # by sat/unsat only), at the reported loop depth.
            at_depth = ([pq.depth_is(loop_depth)] if pq.depth and loop_depth is not None
                        else [])
            for ka, kb in _kind_order(pq.k1, pq.k2):
                if (ka, kb) == (c1.kind, c2.kind):
                    break
                r3, m3 = ex.q.check(pq.query, a1.kind_is(ka), a2.kind_is(kb), *at_depth)
                if r3 == z3.sat and m3 is not None:
                    best = m3
                    c1, c2 = a1.chosen(best), a2.chosen(best)
                    break
        kind1, kind2 = c1.kind, c2.kind
        l1, l2 = pq.l1, pq.l2
        swap = tree.order(l1) > tree.order(l2)
        first, second = (l2, l1) if swap else (l1, l2)
        kinds = (kind2, kind1) if swap else (kind1, kind2)
        witness = self._witness(ex, best, shown_index(c1), swap)
        return Race(first, second, mem.name, kinds, mem.space, witness, loop_depth, depths,
                    not ex.same)


@dataclass
class _PairQuery:
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


#: most severe first: a write races with everything, an atomic with plain accesses
_SEVERITY = {AccessKind.WRITE: 0, AccessKind.ATOMIC: 1, AccessKind.READ: 2}


def _kind_order(k1: set[AccessKind],
                k2: set[AccessKind]) -> list[tuple[AccessKind, AccessKind]]:
    """The conflicting kind pairs of two label sides, most severe first."""
    pairs = [(a, b) for a, b in itertools.product(sorted(k1), sorted(k2)) if conflicts(a, b)]
    return sorted(pairs, key=lambda p: (_SEVERITY[p[0]], _SEVERITY[p[1]]))


@dataclass
class _CrossResult:
    """What the cross-block part of a check found (see :meth:`SDVOracle._cross_part`)."""

    races: list[Race]
    query_unknowns: list[tuple[str, int | None]]
    exec_unknowns: list[tuple[str, int | None]]


_CROSS_CACHE_SIZE = 16


def _shape(x: Any) -> Any:
    """A hashable description of a statement/block tree with plain barriers left out."""
    if isinstance(x, (K.Stmt, K.Block)):
        parts: list[Any] = [type(x).__name__]
        for f in dataclasses.fields(x):
            parts.append(_shape(getattr(x, f.name)))
        return tuple(parts)
    if isinstance(x, list):
        return tuple(_shape(y) for y in x if not isinstance(y, K.Barrier))
    return repr(x)


def _barrier_free_key(kernel: Kernel, max_unroll: int, unroll_budget: int) -> tuple[Any, ...]:
    """Cache key of the cross-block part: everything the executor reads from the kernel,
    except plain barriers (and ``next_label``, which inserting barriers bumps)."""
    return (kernel.name, repr(kernel.params), repr(kernel.launch), repr(kernel.requires),
            repr(sorted(kernel.memories.items())), kernel.uses_named_barriers,
            _shape(kernel.body), max_unroll, unroll_budget)


__all__ = ["SDVOracle"]
