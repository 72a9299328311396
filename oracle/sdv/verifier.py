"""``sdv``: the bundled static verifier -- races and barrier divergence under SDV semantics.

[AutoSync] (Sec. V) uses GPUVerify as its oracle; this is our own implementation of the same
idea: the *two-thread reduction* with predicated lock-step execution ([WarpsAtomics] Sec.
2.3, [AutoSync] Fig. 9), encoded for z3.  The symbolic execution is :mod:`oracle.sdv.executor`;
this module runs it, turns the access log into race queries and the barrier log into
divergence queries, and builds the :class:`~oracle.base.Verdict`.

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
  the race occurs (found by re-querying with the found depths excluded),
  ``Race.cross_block`` says it happens only between threads of two different blocks (a
  pair with a same-block witness is an intra-block race, :func:`_add_inter_block`) and
  ``Race.same_warp`` that every racing pair is two lanes of one warp (one more query when the
  witness is such a pair; option ``warp_facts``, off for ``check``): a ``__syncwarp()`` may fix it;
  ``Verdict.uniform_guards`` names the ``if`` guards proved true for every thread
  (:mod:`oracle.sdv.facts`, option ``uniform_guards``, on by default).

Anything the encoder cannot model, and every z3 ``unknown``, becomes an
:class:`~oracle.base.Unknown` -- never a silent pass.  ``timeout`` (seconds) bounds the whole
check; when it is reached :class:`~oracle.base.OracleError` with ``timeout=True`` is raised.

Why one piece over 400 lines: the decision stage -- the two runs' logs to the verdict (race
queries per label pair, their decoding, divergence queries, the cross-block half and its
cache), a named method each; location compares are :mod:`oracle.sdv.memory`'s, one pair
query's data :mod:`oracle.sdv.pairs`'s.
"""

from __future__ import annotations

import dataclasses
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
    assertion_finding,
    one_per_line,
)
from oracle.sdv.executor import Executor, QueryEngine
from oracle.sdv.facts import GuardCache
from oracle.sdv.invariants import HoudiniMemo
from oracle.sdv.memfacts import mem_facts
from oracle.sdv.memory import (
    Access,
    shown_index,
)
from oracle.sdv.pairs import (
    PairQuery,
    PairResult,
    Side,
    class_pair_results,
    kind_order,
    label_classes,
    pair_candidates,
    pair_query,
    same_warp_only,
    selector_free,
)
from oracle.sdv.shapes import barrier_free_key, has_grid_barrier
from oracle.sdv.state import stmt_exprs
from oracle.sdv.stmt import AssertFailure, fence_views
from oracle.sdv.witness import small_model, witness


class SDVOracle(OracleBase):
    """The bundled static verifier (``--oracle sdv``).

    ``timeout``: seconds for the whole check (z3 queries get the remaining time; reaching it
    raises :class:`OracleError` with ``timeout=True``).  ``max_unroll``: the most iterations
    a loop is unrolled exactly before the loop abstraction is used.  Options: ``deadline`` (a
    ``monotonic()`` moment each check ends by, as ``timeout``: a run's budget, autosync's
    guard), ``query_timeout_ms`` (default 20000), ``rlimit`` (z3 resource limit per query) and
    ``cross_cache`` (default True: the cross-block part and the Houdini results are reused by
    later checks of a kernel that differs only in barriers, :class:`HoudiniMemo`), ``warp_facts``."""

    name = "sdv"

    def __init__(self, timeout: float | None = None, max_unroll: int = 64, **options: Any) -> None:
        self.timeout, self.deadline = timeout, options.get("deadline")
        self.max_unroll = max_unroll
        self.query_ms = int(options.get("query_timeout_ms", 20000))
        self.rlimit = options.get("rlimit")
        self.unroll_budget = int(options.get("unroll_budget", 512))
        self.cross_cache = bool(options.get("cross_cache", True))
        #: two writes storing the same value are no race (GPUVerify's default; --no-benign)
        self.benign = bool(options.get("benign", True))
        self.warp_facts = bool(options.get("warp_facts", True))
        self._cross: OrderedDict[tuple[Any, ...], _CrossResult] = OrderedDict()
        # Houdini results of the kernel last checked, kept while the checks differ only
        # in barriers (the candidates of one synthesis run)
        self._memo: HoudiniMemo | None = None
        # race-pair answers of the same kernel shape, by the run's decisions (``_races``)
        self._pairs: dict[tuple[Any, ...], dict[tuple[Any, ...], PairResult | None]] = {}
        self._pairs_for: HoudiniMemo | None = None
        # optional fact: `if` guards true for every thread (oracle.sdv.facts), cached per kernel shape
        self._guards = GuardCache() if options.get("uniform_guards", True) else None

    # ------------------------------------------------------------------ entry point

    def check(self, kernel: Kernel) -> Verdict:
        start = time.monotonic()
        deadline = min((t for t in (self.timeout and start + self.timeout, self.deadline) if t), default=None)
        tree = LabelTree(kernel)
        verdict = Verdict()
        engine = QueryEngine(deadline, self.query_ms, self.rlimit)
        found: dict[tuple[int, int, str], Race] = {}

        key = barrier_free_key(kernel, self.max_unroll, self.unroll_budget) \
            if self.cross_cache else None
        memo = None
        # Houdini results and race-pair answers are reused across candidates keyed on the
        # run's barrier-dependent decisions (``Executor.events``: the interval each read of
        # the equality abstraction names, oracle.sdv.memory); distinct atomic results (per
        # interval, oracle.sdv.memfacts) are not logged, so then each candidate is fresh
        views = fence_views(kernel)
        if key is not None and not _values_follow_barriers(kernel) and views == [None]:
            memo = self._memo if self._memo is not None and self._memo.kernel_key == key \
                else HoudiniMemo(key)
            self._memo = memo
        failed: list[AssertFailure] = []
        # each view's run over-approximates every execution (reads outside its space are any
        # value), so a barrier diverges only if it does in every view: a branch on local
        # memory is not taken for non-uniform in the global view's run alone
        first_div = len(verdict.divergences)
        in_view: list[set[int]] = []
        for view in views:  # one run per space where barriers order spaces differently
            if view != views[0]:
                engine.solver.reset()  # the previous view's path facts are not this run's
                if engine.rlimit:
                    engine.solver.set("rlimit", engine.rlimit)
            same = Executor(kernel, "same", engine, max_unroll=self.max_unroll,
                            unroll_budget=self.unroll_budget, memo=memo, view=view)
            same.run()
            if same.vacuous() and not any("overflows a signed" in u.reason for u in verdict.unknowns):
                verdict.unknowns.append(Unknown(
                    "every execution overflows a signed integer (undefined behaviour) or "
                    "converts an unsigned sum out of a signed type's range: nothing is proved "
                    "for it"))
            seen_div = {d.label for d in verdict.divergences}
            found_before = len(verdict.divergences)
            self._divergences(same, tree, verdict)
            in_view.append({d.label for d in verdict.divergences[found_before:]})
            verdict.divergences = [d for i, d in enumerate(verdict.divergences)
                                   if i < found_before or d.label not in seen_div]
            across = None
            if memo is not None:
                if self._pairs_for is not memo:
                    self._pairs, self._pairs_for = {}, memo
                across = self._pairs.setdefault(tuple(same.events), {})
            for race in self._races(same, tree, kernel, verdict, across):
                found[race.key] = race
            self._collect_unknowns_list(same.unknowns, tree, verdict)
            if self._guards is not None and view == views[0]:  # optional fact (oracle.sdv.facts)
                verdict.uniform_guards = self._guards.get(kernel, same, tree)
            failed.extend(same.failed_asserts)

        everywhere = set.intersection(*in_view) if in_view else set()
        verdict.divergences = [d for i, d in enumerate(verdict.divergences)
                               if i < first_div or d.label in everywhere]
        if kernel.launch.blocks > 1 and (self._global_writes(kernel) or has_grid_barrier(kernel)):
            cres = self._cross_part(kernel, tree, engine, key)
            seen_div = {d.label for d in verdict.divergences}
            verdict.divergences.extend(d for d in cres.divergences if d.label not in seen_div)
            verdict.unknowns.extend(Unknown(reason, label, self._line(tree, label))
                                    for reason, label in cres.query_unknowns)
            _add_inter_block(found, cres.races)
            self._collect_unknowns_list(cres.exec_unknowns, tree, verdict)
            failed.extend(cres.failed_asserts)
        # one message per finding: an annotation checked at several places (an invariant at
        # loop entry and latch, each unrolled instance) is one finding at its line
        seen_asserts: set[tuple[str, int | None]] = set()
        for fa in failed:
            at = (fa.kind, self._line(tree, fa.label) or -fa.label)
            if at not in seen_asserts:
                seen_asserts.add(at)
                verdict.findings.append(assertion_finding(
                    fa.kind, fa.label, Witness(fa.thread, fa.thread, fa.block, fa.block)))
        verdict.unknowns = one_per_line(verdict.unknowns)

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

    def _cross_part(self, kernel: Kernel, tree: LabelTree, engine: QueryEngine,
                    key: tuple[Any, ...] | None) -> _CrossResult:
        """The cross-block half of :meth:`check`, answered from the cache when a kernel with
        the same barrier-free structure was checked before by this oracle.  (Grid barriers,
        ``BarrierKind.GRID``, are the exception: they order blocks, bump the cross-mode
        epoch and are part of the key.)

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
        self._divergences(cross, tree, scratch)  # grid barriers not run by both blocks
        res = _CrossResult(races, [(u.reason, u.label) for u in scratch.unknowns],
                           list(cross.unknowns), list(cross.failed_asserts),
                           list(scratch.divergences))
        if key is not None and not scratch.unknowns:
            self._cross[key] = res
            while len(self._cross) > _CROSS_CACHE_SIZE:
                self._cross.popitem(last=False)
        return res

    def _collect_unknowns_list(self, unknowns: list[tuple[str, int | None]], tree: LabelTree,
                               verdict: Verdict) -> None:
        seen = {(u.reason, u.label) for u in verdict.unknowns}
        for reason, label in unknowns:
            if (reason, label) not in seen:
                seen.add((reason, label))
                verdict.unknowns.append(Unknown(reason, label, self._line(tree, label)))

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
            r, m, _ = ex.check_witness(z3.Or([p1 != p2 for p1, p2 in hits]))
            if r == z3.sat and m is not None:
                verdict.divergences.append(Divergence(label, witness(ex, m, None)))
            elif r == z3.unknown:
                verdict.unknowns.append(Unknown("solver gave up on the divergence query for "
                                                "this barrier", label, self._line(tree, label)))

    def _races(self, ex: Executor, tree: LabelTree, kernel: Kernel, verdict: Verdict,
               across: dict[tuple[Any, ...], PairResult | None] | None = None) -> list[Race]:
        """Every racing label pair; labels whose queries are one formula up to selector names
        form a class (:class:`~oracle.sdv.pairs.LabelClass`), asked once per class pair and
        mapped back to its member pairs: a barrier-free kernel of n statements has ~n² label
        pairs over a few (predicate, index, epoch) shapes.

        ``across``: answers shared with earlier checks of this synthesis run (``same`` mode):
        a kernel with the same shape without its barriers and the same barrier-dependent
        decisions (:class:`HoudiniMemo`) logs the same accesses up to the names of fresh
        variables and the epoch terms.  A pair whose query mentions only constant epochs and
        iteration numbers therefore asks an equivalent formula -- the other epoch and
        iteration facts of the run are lower bounds and an ordering choice over variables no
        other fact mentions, which every model of the rest satisfies -- and is keyed by its
        labels, the positions of the instances it compares and their epochs."""
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
            same_warp = ex.same_warp(warp)
        loops: dict[int, tuple[int, ...]] = {}
        memo: dict[tuple[Any, ...], PairResult | None] = {}
        out: list[Race] = []
        unknown_at: set[tuple[str, int]] = set()
        for name in sorted(groups):
            mem = mems[name]
            labels = sorted(groups[name], key=tree.order)
            sides = {lab: (Side(groups[name][lab][0]), Side(groups[name][lab][1]))
                     for lab in labels}
            for lab in labels:
                loops[lab] = tree.loops(lab)
            classes = label_classes(labels, sides, loops)
            for i, j in pair_candidates(classes, ex.same):
                def ask(l1: int, l2: int, t1: Side, t2: Side, values: bool,
                        mem: K.Memory = mem) -> PairResult | None:
                    return self._pair(ex, tree, mem, l1, l2, t1, t2, loops, same_warp, memo,
                                      across, values=values)

                for l1, l2, res in class_pair_results(classes[i], classes[j], i == j,
                                                      same_warp is not None, sides, ask):
                    if res.unknown:
                        if (name, l1) not in unknown_at:
                            unknown_at.add((name, l1))
                            verdict.unknowns.append(Unknown(
                                f"solver gave up on the race query for '{name}'", l1,
                                self._line(tree, l1)))
                        continue
                    out.append(Race(l1, l2, name, (res.kind1, res.kind2), mem.space,
                                    res.witness, res.loop_depth, res.depths, not ex.same,
                                    same_warp=res.same_warp))
        return out

    def _pair(self, ex: Executor, tree: LabelTree, mem: K.Memory, l1: int, l2: int,
              t1: Side, t2: Side, loops: dict[int, tuple[int, ...]],
              same_warp: z3.BoolRef | None, memo: dict[tuple[Any, ...], PairResult | None],
              across: dict[tuple[Any, ...], PairResult | None] | None,
              values: bool = True) -> PairResult | None:
        """Do labels ``l1`` (thread 1) and ``l2`` (thread 2, not before ``l1`` in text order)
        race on ``mem``?  Build the one query for the pair, ask it (or take the answer of an
        identical query), compute the loop depths and decode the witness (thread 1 first).
        None: no race.  ``values=False``: only the value-free query (the same for every
        label pair of two :class:`~oracle.sdv.pairs.LabelClass` es), without the benign-write
        refinement by the stored values."""
        s1, s2 = t1.insts, t2.insts
        sig1, sig2 = t1.sigs, t2.sigs
        keep1: tuple[int, ...] | None = None
        keep2: tuple[int, ...] | None = None
        if ex.same and t1.epochs is not None and t2.epochs is not None:
            common = t1.epochs & t2.epochs
            if not common:
                return None
            keep1 = tuple(j for j, e in enumerate(t1.epoch_of) if e in common)
            keep2 = tuple(j for j, e in enumerate(t2.epoch_of) if e in common)
            if len(keep1) < len(s1):
                s1, sig1 = [s1[j] for j in keep1], tuple(sig1[j] for j in keep1)
            if len(keep2) < len(s2):
                s2, sig2 = [s2[j] for j in keep2], tuple(sig2[j] for j in keep2)
        lp1, lp2 = set(loops[l2]), loops[l1]
        shared = tuple(lp for lp in lp2 if lp in lp1)
        d = len(shared)
        exact_tags = ex.same and all(
            len(a.tags) >= d and tuple(lp for lp, _ in a.tags[:d]) == shared for a in s1 + s2)
        wl = same_warp is not None and l1 == l2
        vals = None
        if values and self.benign and AccessKind.WRITE in t1.kinds \
                and AccessKind.WRITE in t2.kinds:
            # benign writes: a race also needs the stored values to differ.  Asked in two
            # steps: the value-free query below (shared by every pair of the same shape, and
            # unsat for most write-write pairs), then, only when that one races, the query
            # with the values (keyed by them too)
            vals = (tuple(t1.vals[j] for j in keep1) if keep1 is not None else t1.vals,
                    tuple(t2.vals[j] for j in keep2) if keep2 is not None else t2.vals)
        key = (mem.name, sig1, sig2, d if exact_tags else None, wl)
        # across the checks of one synthesis run: where the query has no epoch and no
        # iteration variable (constant epochs and tags), see ``_across``
        skey = None
        if (across is not None and keep1 is not None and keep2 is not None
                and all(z3.is_int_value(x) for a in s1 + s2 for x in (a.waits, *(i for _, i in a.tags)))):
            skey = (mem.name, l1, l2, keep1, keep2,
                    tuple(a.waits.as_long() for a in s1 + s2),  # type: ignore[attr-defined]
                    tuple(t1.epoch_of[j] for j in keep1), tuple(t2.epoch_of[j] for j in keep2),
                    d if exact_tags else None, wl)
        if key in memo:
            res = memo[key]
        elif skey is not None and skey in across:  # type: ignore[operator]
            res = across[skey]  # type: ignore[index]
            memo[key] = res
        else:
            res = self._ask_pair(ex, tree, l1, l2, s1, s2, shared, exact_tags, same_warp, False)
            memo[key] = res
            if skey is not None and (res is None or not res.unknown):
                across[skey] = res  # type: ignore[index]
        if res is not None and not res.unknown and vals is not None:
            vkey = key + (vals,)
            if vkey not in memo:
                memo[vkey] = self._ask_pair(ex, tree, l1, l2, s1, s2, shared, exact_tags,
                                            same_warp, True)
            res = memo[vkey]
        return res

    def _ask_pair(self, ex: Executor, tree: LabelTree, l1: int, l2: int, s1: list[Access],
                  s2: list[Access], shared: tuple[int, ...], exact_tags: bool,
                  same_warp: z3.BoolRef | None, benign: bool) -> PairResult | None:
        """The solver's answer for one pair query (None: no race; ``benign``: two writes
        race only if they can store different values)."""
        pq = pair_query(ex, l1, l2, s1, s2, shared, exact_tags, same_warp, benign)
        if pq is None:
            return None
        renamed = selector_free(pq.query, (pq.a1, pq.a2))
        if renamed.get_id() in ex.unsat_pairs:
            return None
        r, m, exact = ex.check_witness(pq.query)
        if r == z3.unsat and not exact:  # (returned as no race below)
            ex.unsat_pairs[renamed.get_id()] = renamed
        if exact:  # the depth and kind queries below ask for executions too
            pq = dataclasses.replace(pq, query=z3.And(pq.query, *exact))
        if r == z3.unknown:
            return PairResult(True)
        if r != z3.sat or m is None:
            return None
        loop_depth, depths, best = self._loop_depths(ex, pq, m)
        res = self._decode_race(ex, pq, best, loop_depth, depths)
        # not asked (warp_facts off; the value-free half of a benign-write pair, whose answer
        # the query with the values replaces): False claims nothing, only __syncthreads() fixes
        ask = self.warp_facts and not (self.benign and not benign and _writes_both(pq))
        return dataclasses.replace(res, same_warp=ask and same_warp_only(ex, pq, best))

    @staticmethod
    def _loop_depths(ex: Executor, pq: PairQuery,
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

    def _decode_race(self, ex: Executor, pq: PairQuery, best: z3.ModelRef,
                     loop_depth: int | None, depths: tuple[int, ...]) -> PairResult:
        """What a satisfiable pair query says: kinds, loop depths, witness (thread 1 first;
        the caller orders the pair by text)."""
        a1, a2 = pq.a1, pq.a2
        c1, c2 = a1.chosen(best), a2.chosen(best)
        if len(pq.k1) > 1 or len(pq.k2) > 1:
            # a statement that reads AND writes the array (``s[i] += s[j]``): which of its
            # accesses the model picks is up to z3 and changes with anything the solver did
            # before; report the most severe feasible kinds instead (deterministic: decided
            # by sat/unsat only), at the reported loop depth.
            at_depth = ([pq.depth_is(loop_depth)] if pq.depth and loop_depth is not None
                        else [])
            for ka, kb in kind_order(pq.k1, pq.k2):
                if (ka, kb) == (c1.kind, c2.kind):
                    break
                r3, m3 = ex.q.check(pq.query, a1.kind_is(ka), a2.kind_is(kb), *at_depth)
                if r3 == z3.sat and m3 is not None:
                    best = m3
                    c1, c2 = a1.chosen(best), a2.chosen(best)
                    break
        # the same instances at the same depth, with small parameter values where they exist
        pins = [a.sel == best.eval(a.sel, model_completion=True) for a in (a1, a2) if a.sel is not None]
        if pq.depth and loop_depth is not None:
            pins.append(pq.depth_is(loop_depth))
        best = small_model(ex, [pq.query, *pins], best)
        return PairResult(False, c1.kind, c2.kind, witness(ex, best, shown_index(c1)),
                           loop_depth, depths)


@dataclass
class _CrossResult:
    """What the cross-block part of a check found (see :meth:`SDVOracle._cross_part`)."""

    races: list[Race]
    query_unknowns: list[tuple[str, int | None]]
    exec_unknowns: list[tuple[str, int | None]]
    failed_asserts: list[AssertFailure]
    #: grid barriers that one block runs and another does not (``BarrierKind.GRID``)
    divergences: list[Divergence]


_CROSS_CACHE_SIZE = 16


def _add_inter_block(found: dict[tuple[int, int, str], Race], races: list[Race]) -> None:
    """Races between blocks are their own class: no barrier orders two blocks.  A pair in
    ``found`` has a same-block witness (the ``same`` run asked for one first), so it is an
    intra-block race -- a barrier may order that part, and a part that crosses blocks shows
    again, as inter-block, once it does; a pair that races only between blocks is added with
    ``cross_block`` (the ``cross`` run's races are between two different blocks by
    construction, :func:`oracle.sdv.state.Machine.base_constraints`)."""
    for race in races:
        if race.key not in found:
            found[race.key] = dataclasses.replace(race, cross_block=True, loop_depth=None,
                                                  same_warp=False)


def _values_follow_barriers(kernel: Kernel) -> bool:
    """Do barriers decide values the run does not log in ``events`` (see ``check``)?"""
    return bool(mem_facts(kernel).counters)


def _writes_both(pq: PairQuery) -> bool:
    """Both sides of the pair query can write (a benign-write pair: values compared)."""
    return AccessKind.WRITE in pq.k1 and AccessKind.WRITE in pq.k2


__all__ = ["SDVOracle"]
