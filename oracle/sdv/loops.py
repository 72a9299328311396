"""Loops of the SDV executor: exact unrolling, or GPUVerify-style abstraction.

Stage: loops.  Under SDV a loop iterates while its guard holds for either thread
([AutoSync] Fig. 9).  :meth:`LoopExecutor.visit_Loop` unrolls a loop exactly when its trip
count is decided by the launch configuration (the guard only mentions constants and
thread/block ids), up to ``max_unroll`` iterations; otherwise it abstracts the loop soundly
(:meth:`LoopExecutor.abstract_loop`: havoc the modified variables, assume the invariants that
:mod:`oracle.sdv.invariants` proved, run one or two arbitrary iterations).  The static facts
about a loop (:class:`oracle.sdv.loopinfo.LoopInfo`) are computed once per loop.

The recursion between statements and loops is one dispatch: :class:`LoopExecutor` adds
``visit_Loop`` to the statement visitor of :mod:`oracle.sdv.stmt` (which it extends), and
runs loop bodies with the inherited ``exec_block``; :mod:`oracle.sdv.stmt` never refers to
loops.  Invariant inference runs iterations through this class too, but only via the
:class:`oracle.sdv.invariants.LoopRunner` protocol that it is handed (``self``).

Why one piece over 400 lines: the abstraction is one soundness argument (the docstring of
:meth:`LoopExecutor.abstract_loop`) over the head state, the A/B iterations, the epoch
constraints and the exit state; splitting it would scatter that argument.  The parts that are
separable -- invariant guessing and checking -- are in :mod:`oracle.sdv.invariants`.
"""

from __future__ import annotations

from typing import Any

import z3

from kpl import ast as K
from oracle.sdv.encode import Val, conv, fresh, is_false, is_true, ite, to_bool
from oracle.sdv.invariants import HoudiniMemo, candidates, houdini, pair_lemmas
from oracle.sdv.loopinfo import LoopInfo
from oracle.sdv.scaling import GHOST_MAX, GHOST_SORT
from oracle.sdv.slice import relevant_vars, skippable_loops
from oracle.sdv.state import (
    FALSE,
    TRUE,
    expr_pure,
    expr_vars,
    mk_and,
    mk_not,
    mk_or,
    simp,
    strip_casts,
)
from oracle.sdv.stmt import StmtExecutor

#: time bound of the query that predicts a loop bounded by the launch or the thread too long
#: to unroll (:meth:`LoopExecutor._predict_too_long`); past it, the loop is unrolled as before
PREDICT_MS = 2000


class LoopExecutor(StmtExecutor):
    """Stage: loops, exact or abstracted.

    ``memo``: Houdini results shared across the checks of one oracle (set by the oracle;
    None: not shared); ``events``: the barrier-dependent decisions and Houdini calls of
    this run, in order, which key the memo (:class:`oracle.sdv.invariants.HoudiniMemo`)."""

    memo: HoudiniMemo | None = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._loop_info: dict[int, LoopInfo] = {}  # static loop facts, by loop label
        #: :meth:`symbols` of each term met, by z3 id
        self._symbols: dict[int, tuple[z3.ExprRef, frozenset[str]]] = {}

    def visit_Loop(self, loop: K.Loop) -> None:
        """The statement dispatch's entry for a loop (:meth:`StmtExecutor.exec_stmt`): nothing
        for a loop that can decide no verdict; exact unrolling when the launch fixes the trip
        count; else the abstraction.  Both run the body through ``exec_block``."""
        if loop.label in self.skipped_loops():
            self.skip_loop(loop)
        elif not self.try_exact(loop):
            self.abstract_loop(loop)

    def relevant(self) -> set[str]:
        """The variables that can decide a verdict (:func:`relevant_vars`), once per run."""
        if self._relevant is None:
            self._relevant = relevant_vars(self.kernel, skipped=self.skipped_loops())
        return self._relevant

    def skipped_loops(self) -> frozenset[int]:
        """Labels of the loops not run (:func:`oracle.sdv.slice.skippable_loops`), once per run."""
        if self._skipped is None:
            self._skipped = skippable_loops(self.kernel)
        return self._skipped

    def symbols(self, e: z3.ExprRef) -> frozenset[str]:
        """The uninterpreted constants and functions ``e`` mentions.  Remembered per term for
        the run: :meth:`try_exact` asks it of each iteration's guard, which is the previous
        one and a little more, so a deep unrolling walks each shared term once, not once per
        iteration (issue 35: ``symbols`` was most of a 25 s check of a 200-iteration loop)."""
        memo = self._symbols
        hit = memo.get(e.get_id())
        if hit is not None:
            return hit[1]
        stack: list[tuple[z3.ExprRef, list[z3.ExprRef] | None]] = [(e, None)]
        while stack:
            x, kids = stack.pop()
            i = x.get_id()
            if i in memo:
                continue
            if kids is None:  # first visit: the children first (z3's ``children`` is dear: once)
                kids = x.children()
                stack.append((x, kids))
                stack.extend((c, None) for c in kids if c.get_id() not in memo)
                continue
            found: frozenset[str] = frozenset()
            for c in kids:
                sub = memo[c.get_id()][1]
                found = sub if not found else found | sub if sub - found else found
            if z3.is_app(x) and x.decl().kind() == z3.Z3_OP_UNINTERPRETED:
                found = found | {x.decl().name()}
            memo[i] = (x, found)  # the term kept alive: its id stays its own
        return memo[e.get_id()][1]

    def predict_too_long(self, loop: K.Loop) -> bool:
        """Cheap look-ahead for counted loops (``for (v = c0; v < N; v += c)`` with constant
        values): True when the loop surely runs more than ``max_unroll`` iterations, so the
        abstraction is used at once instead of after ``max_unroll`` wasted iterations."""
        cond = strip_casts(loop.cond)
        if not (isinstance(cond, K.Binary) and cond.op in ("<", "<=", ">", ">=", "!=")):
            return False
        lhs = strip_casts(cond.left)
        info = self.loop_info(loop)
        if not isinstance(lhs, K.Var) or lhs.name not in info.steps:
            return False
        op, step_e = info.steps[lhs.name]
        # the answer is a function of the values the guard and the step read: asked once
        # per run and values (an inner loop of an unrolled one is met once per iteration)
        used = sorted(expr_vars(loop.cond) | expr_vars(step_e))
        vals = tuple(self.th[t].vars.get(n) for t in range(2) for n in used)
        key: tuple[object, ...] | None = None
        if expr_pure(loop.cond) and expr_pure(step_e) \
                and all(isinstance(x, z3.ExprRef) for x in vals):
            key = (loop.label, tuple(x.get_id() for x in vals))  # type: ignore[union-attr]
            hit = self._too_long.get(key)
            if hit is not None:
                return hit[1]
        long = self._predict_too_long(loop, lhs, op, step_e)
        if key is not None:
            self._too_long[key] = (vals, long)  # the values kept alive: their ids stay theirs
        return long

    def _predict_too_long(self, loop: K.Loop, lhs: K.Var, op: str, step_e: K.Expr) -> bool:
        """True when the guard holds for ``max_unroll + 1`` steps of the counter from its
        constant start: for both threads as constants, or -- a bound the launch or the thread
        decides, ``i < get_global_id(0)`` -- for one thread, the solver says, where the
        counter steps once per iteration, in the latch only, and nothing leaves the loop
        early.  Then the exact unrolling could only fail at ``max_unroll`` (its ``la`` is not
        false), after ``max_unroll`` iterations of work: the abstraction at once is the same
        verdict (issue 35: 64 wasted iterations of a thread-bounded loop, twice)."""
        symbolic: list[list[z3.BoolRef]] = [[], []]
        for t in range(2):
            vs = dict(self.th[t].vars)
            v = vs.get(lhs.name)
            step = conv(self.eval_in(step_e, t, vs, TRUE), step_e.type, lhs.type)
            if not (isinstance(v, z3.BitVecRef) and z3.is_bv_value(v)
                    and isinstance(step, z3.BitVecRef) and z3.is_bv_value(simp(step))):
                return False
            for _ in range(self.max_unroll + 1):
                vs[lhs.name] = v
                g = simp(to_bool(self.eval_in(loop.cond, t, vs, TRUE)))
                if is_false(g):
                    return False
                if not is_true(g):
                    symbolic[t].append(g)
                v = simp(v + step if op == "+" else v - step)
        if not (symbolic[0] or symbolic[1]):
            return True
        info = self.loop_info(loop)
        if info.has_break or info.has_return or not self._latch_only_step(loop, lhs.name) \
                or (expr_vars(loop.cond) - {lhs.name}) & set(info.modified):
            return False
        return any(self.q.check(mk_and(self.th[t].pred, *symbolic[t]), limit_ms=PREDICT_MS)[0] == z3.sat
                   for t in range(2) if not is_false(self.th[t].pred))

    @staticmethod
    def _latch_only_step(loop: K.Loop, name: str) -> bool:
        """``name`` is assigned in the loop's latch and nowhere in its body."""
        def assigns(s: K.Stmt) -> bool:
            return isinstance(s, K.Assign) and isinstance(s.target, K.Var) and s.target.name == name
        return any(assigns(s) for s in loop.latch) and not any(assigns(s) for s in K.walk_stmts(loop.body))

    def try_exact(self, loop: K.Loop) -> bool:
        if self.predict_too_long(loop):
            return False
        snap = self.snapshot()
        pe = self.preds()
        allowed = [self.launch_syms | self.symbols(p) for p in pe]
        saved = [(th.brk, th.cont) for th in self.th]
        for th in self.th:
            th.brk = FALSE
            th.cont = FALSE
        la = list(pe)
        k = 0
        ok = True
        known_live: list[z3.BoolRef] | None = None
        # a power-of-two counter whose guard is not fixed by the launch (a halving stride
        # started from an enclosing loop's havocked size) would unroll into ~32 symbolic
        # copies of the body; its abstraction is exact enough (oracle.sdv.scaling)
        launch_only = bool(self.loop_info(loop).scales)
        while True:
            self.label = loop.label
            if loop.test_first or k > 0:
                g = [to_bool(self.ev(loop.cond, t, la[t])) for t in range(2)]
                if launch_only and any(not self.symbols(x) <= self.launch_syms for x in g):
                    ok = False
                    break
                la = [mk_and(la[t], g[t]) for t in range(2)]
            if all(is_false(x) for x in la):
                break
            if any(not self.symbols(la[t]) <= allowed[t] for t in range(2)):
                ok = False
                break
            if k >= self.max_unroll or self.unroll_budget <= 0:
                ok = False
                break
            unchanged = known_live is not None and all(a.eq(b) for a, b in zip(la, known_live, strict=False))
            if not any(is_true(x) for x in la) and not unchanged:
                r, _ = self.q.check(mk_or(*la))
                if r == z3.unsat:
                    break
                if r == z3.unknown:
                    ok = False
                    break
                known_live = list(la)
            self.unroll_budget -= 1
            self.tags.append((loop.label, z3.IntVal(k)))
            for t, th in enumerate(self.th):
                th.pred = la[t]
                th.cont = FALSE
            self.exec_block(loop.body)
            for t, th in enumerate(self.th):
                th.cont = FALSE
                th.pred = mk_and(la[t], mk_not(th.brk), mk_not(th.ret))
            self.exec_stmts(loop.latch)
            la = [th.pred for th in self.th]
            self.tags.pop()
            k += 1
        if not ok:
            self.restore(snap)
            return False
        for t, th in enumerate(self.th):
            th.brk, th.cont = saved[t]
            th.pred = mk_and(pe[t], mk_not(th.ret))
        return True

    # .................................................................. abstraction

    def loop_info(self, loop: K.Loop) -> LoopInfo:
        """The static facts of ``loop`` (:meth:`LoopInfo.of`), once per run."""
        info = self._loop_info.get(loop.label)
        if info is None:
            info = self._loop_info[loop.label] = LoopInfo.of(loop)
        return info

    def havoc(self, info: LoopInfo, s0: list[dict[str, Val]], pe: list[z3.BoolRef],
              tag: str) -> tuple[list[dict[str, Val]], list[z3.BoolRef], z3.ArithRef]:
        """A fresh loop-head state: modified variables havocked (per thread), loop-activity
        flags ``la`` (a thread still in the loop was enabled at entry), iteration number ``k``."""
        vs = [dict(s0[t]) for t in range(2)]
        for name, ct in info.modified.items():
            for t in range(2):
                old = s0[t].get(name)
                if name.startswith("@"):
                    if isinstance(old, dict):
                        vs[t][name] = {f: z3.FreshConst(a.sort(), f"{name}.{f}")
                                       for f, a in old.items()}
                    elif isinstance(old, z3.ExprRef):
                        vs[t][name] = z3.FreshConst(old.sort(), name)
                    continue
                if isinstance(old, z3.ExprRef) and not isinstance(old, dict):
                    vs[t][name] = z3.FreshConst(old.sort(), f"{tag}.{name}")
                else:
                    vs[t][name] = fresh(ct, f"{tag}.{name}")
        if info.ghost is not None:
            for t in range(2):
                vs[t][info.ghost] = z3.FreshConst(GHOST_SORT, f"{tag}.iter")
        la = [z3.FreshBool(f"{tag}.la{t + 1}") for t in range(2)]
        for t in range(2):
            self.q.add(z3.Implies(la[t], pe[t]))
        k = z3.FreshInt(f"{tag}.k")
        self.q.add(k >= 0)
        return vs, la, k

    def run_iteration(self, loop: K.Loop, vs: list[dict[str, Val]], la: list[z3.BoolRef],
                      k: z3.ArithRef) -> tuple[list[z3.BoolRef], list[z3.BoolRef]]:
        """One loop iteration from head state (vs, la): returns (la after, active in body)."""
        for t, th in enumerate(self.th):
            th.vars = dict(vs[t])
            th.brk = FALSE
            th.cont = FALSE
        self.tags.append((loop.label, k))
        self.label = loop.label
        if loop.test_first:
            g = [to_bool(self.ev(loop.cond, t, la[t])) for t in range(2)]
            act = [mk_and(la[t], g[t]) for t in range(2)]
        else:
            act = list(la)
        for t, th in enumerate(self.th):
            th.pred = act[t]
        self.exec_block(loop.body)
        for t, th in enumerate(self.th):
            th.cont = FALSE
            th.pred = mk_and(act[t], mk_not(th.brk), mk_not(th.ret))
        self.exec_stmts(loop.latch)
        ghost = self.loop_info(loop).ghost
        if ghost is not None:  # counts the iterations a thread starts, saturating
            for t, th in enumerate(self.th):
                j = vs[t][ghost]
                assert isinstance(j, z3.BitVecRef)
                th.vars[ghost] = z3.If(z3.And(act[t], j != GHOST_MAX), j + 1, j)
        if not loop.test_first:
            self.label = loop.label
            for t, th in enumerate(self.th):
                g2 = to_bool(self.ev(loop.cond, t, th.pred))
                th.pred = mk_and(th.pred, g2)
        self.tags.pop()
        return [th.pred for th in self.th], act

    def last_iteration(self, loop: K.Loop, vs: list[dict[str, Val]],
                       la: list[z3.BoolRef]) -> z3.BoolRef | None:
        """Neither thread starts another iteration from head state (``vs``, ``la``): not
        active, or (a loop testing first) its guard is false there.  None (not known) for
        a guard that reads memory or calls, whose value ``eval_in`` cannot reproduce."""
        if loop.test_first and not expr_pure(loop.cond):
            return None
        go = []
        for t in range(2):
            if loop.test_first:
                g = to_bool(self.eval_in(loop.cond, t, vs[t], la[t]))
                go.append(mk_and(la[t], g))
            else:
                go.append(la[t])
        return mk_not(mk_or(*go))

    def havoc_exit(self, loop: K.Loop, info: LoopInfo, s0: list[dict[str, Val]],
                   pe: list[z3.BoolRef]) -> list[dict[str, Val]]:
        """The two threads' variables after ``loop``: those it modifies are fresh where the
        thread entered it (``pe``), the others as at entry ``s0``."""
        xs = [dict(s0[t]) for t in range(2)]
        for name, ct in info.modified.items():
            for t in range(2):
                old = s0[t].get(name)
                if isinstance(old, dict):
                    new: Val = {f: z3.FreshConst(a.sort(), f"x{loop.label}.{name}")
                                for f, a in old.items()}
                elif isinstance(old, z3.ExprRef):
                    new = z3.FreshConst(old.sort(), f"x{loop.label}.{name}")
                else:
                    new = fresh(ct, f"x{loop.label}.{name}")
                xs[t][name] = ite(pe[t], new, old) if old is not None else new
        if info.ghost is not None:
            for t in range(2):
                xs[t][info.ghost] = z3.FreshConst(GHOST_SORT, f"x{loop.label}.iter")
        return xs

    def skip_loop(self, loop: K.Loop) -> None:
        """Run a loop that can decide no verdict (:func:`oracle.sdv.slice.skippable_loops`): its variables
        are havocked, nothing else happens."""
        pe = self.preds()
        xs = self.havoc_exit(loop, self.loop_info(loop), [dict(th.vars) for th in self.th], pe)
        for t, th in enumerate(self.th):
            th.vars = xs[t]

    def _fresh_waits(self, name: str, lows: list[z3.ArithRef]) -> z3.ArithRef:
        """A havocked ``wait_group_events`` count, at least each of ``lows``."""
        w = z3.FreshInt(name)
        for low in lows:
            self.q.add(w >= low)
        return w

    def abstract_loop(self, loop: K.Loop) -> None:
        """Sound loop abstraction (GPUVerify style, [WarpsAtomics] Sec. 2.3).

        Why it is sound: the head state ``H`` is a fresh state constrained only by invariants
        proved to hold at entry and to be preserved by one iteration (Houdini), so ``H``
        over-approximates the state at the head of EVERY iteration i.  Executing iteration
        ``A`` from ``H`` therefore yields every access of every iteration (for the two threads
        in the same iteration, since in one block both threads run the same iterations in
        lock-step; the la-uniform/uniform(v) invariants are relational facts between them).
        Inter-iteration pairs: if every iteration that a thread completes executes a barrier
        (checked by a query on the epoch), only consecutive iterations i, i+1 can share an
        epoch, and iteration ``B`` run from A's final state is iteration i+1.  Otherwise ``B``
        is run from an independent head state ``H2`` (another arbitrary iteration j), with no
        epoch relation to A, so every pair (i, j) is covered.  In ``cross`` mode the two
        threads are in different blocks (no lock-step): one independent head state per
        thread suffices, and no relational invariant is used.  After the loop the modified
        variables are havocked again and the per-thread invariants plus the negated guard are
        assumed for threads that left normally (not via break/return); the epoch after the
        loop is at least the epoch after any executed iteration.  When iterations are
        consecutive and nothing leaves the loop early, every iteration a thread starts it
        completes, with a barrier: so the epoch after the loop equals the end of A (or B)
        only if neither thread starts another iteration after it, and exceeds the entry
        epoch if either thread enters (a scan's ``if (tid == 0) temp[n - 1] = 0`` after
        the up-sweep meets only the last step, where only thread 0 writes).  A loop holding a
        grid barrier is abstracted in ``cross`` mode as in ``same`` mode, the epoch being the
        grid barriers' (:meth:`oracle.sdv.loopinfo.LoopInfo.lockstep` says why that is sound)."""
        info = self.loop_info(loop)
        pe = self.preds()
        s0 = [dict(th.vars) for th in self.th]
        ret0 = [th.ret for th in self.th]
        saved = [(th.brk, th.cont) for th in self.th]
        ep0 = self.epoch
        lockstep = info.lockstep(self.same)  # cross mode: a loop with a grid barrier
        barrier_epochs = info.has_barrier and lockstep
        # wait_group_events counts (K.WaitEvents): havocked like the epoch, each iteration's
        # own waits counted from its start; a later iteration starts at least at the count
        # where an earlier one ended (as epochs)
        w0 = self.waits
        wait_counts = self.same and any(isinstance(s, K.WaitEvents) for s in
                                        [*K.walk_stmts(loop.body), *loop.latch])
        if self.memo is not None:
            cands = self.memo.invariants(self, loop, info, s0, pe)
        else:
            cands = houdini(self, loop, info, s0, pe, candidates(self, loop, info, s0, pe))[0]

        vs, la, k = self.havoc(info, s0, pe, f"h{loop.label}")
        for c in cands:
            for f in c.fn(vs, la, pe):
                self.q.add(f)
            if c.exact_fn is not None:
                self.exact_facts += c.exact_fn(vs, la, pe)
        for f in pair_lemmas(cands, [(vs[0], vs[1])]):
            self.q.add(f)
        if barrier_epochs:
            ep = z3.FreshInt(f"h{loop.label}.ep")
            self.q.add(ep >= ep0)
            self.epoch = ep
        if wait_counts:
            self.waits = self._fresh_waits(f"h{loop.label}.w", [w0])
        ep_head, wa_head = self.epoch, self.waits
        for th, r0 in zip(self.th, ret0, strict=False):
            th.ret = r0
        la_a, act_a = self.run_iteration(loop, vs, la, k)
        ends = [self.epoch]
        wait_ends = [self.waits]
        exit_uniform = False
        consecutive = False
        last_a: z3.BoolRef | None = None
        last_b: z3.BoolRef | None = None
        if lockstep:
            if info.has_barrier:
                q = z3.And(z3.Or([z3.And(act_a[t], la_a[t]) for t in range(2)]),
                           self.epoch == ep_head)
                r, _ = self.q.check(q)
                consecutive = r == z3.unsat
                if consecutive:  # B from A's state: later facts differ (HoudiniMemo)
                    self.events.append(("consecutive", loop.label))
            if consecutive:
                after = [dict(th.vars) for th in self.th]
                last_a = self.last_iteration(loop, after, la_a)
                la_b, _ = self.run_iteration(loop, after, la_a, k + 1)
                last_b = self.last_iteration(loop, [dict(th.vars) for th in self.th], la_b)
            else:
                # B: another iteration j != i of the same block (A covers j == i exactly).
                # Epochs are monotone: j > i starts after i ended, and vice versa.
                vs2, la2, k2 = self.havoc(info, s0, pe, f"h{loop.label}b")
                self.q.add(k2 != k)
                for c in cands:
                    for f in c.fn(vs2, la2, pe):
                        self.q.add(f)
                    if c.exact_fn is not None:
                        self.exact_facts += c.exact_fn(vs2, la2, pe)
                for f in pair_lemmas(cands, [(vs[0], vs2[1]), (vs2[0], vs[1]), (vs2[0], vs2[1])]):
                    self.q.add(f)
                end_a = self.epoch
                if barrier_epochs:
                    ep2 = z3.FreshInt(f"h{loop.label}b.ep")
                    self.q.add(ep2 >= ep0)
                    self.epoch = ep2
                w_head, w_end = self.waits, self.waits  # B's head count, A's end count
                if wait_counts:
                    w_head = self.waits = self._fresh_waits(f"h{loop.label}b.w", [w0])
                for th, r0 in zip(self.th, ret0, strict=False):
                    th.ret = r0
                self.run_iteration(loop, vs2, la2, k2)
                if barrier_epochs:
                    self.q.add(z3.Or(z3.And(k2 > k, ep2 >= end_a),
                                     z3.And(k2 < k, ep_head >= self.epoch)))
                if wait_counts:  # wait counts are monotone too (an async copy's order)
                    self.q.add(z3.Or(z3.And(k2 > k, w_head >= w_end),
                                     z3.And(k2 < k, wa_head >= self.waits)))
            ends.append(self.epoch)
            wait_ends.append(self.waits)
            if (any(c.pair for c in cands) and not info.has_break and not info.has_return):
                r, _ = self.q.check(z3.And(la[0], la[1]), la_a[0] != la_a[1])
                exit_uniform = r == z3.unsat
        # ---- after the loop
        xs = self.havoc_exit(loop, info, s0, pe)
        brk_x = [z3.FreshBool(f"x{loop.label}.brk") if info.has_break else FALSE
                 for _ in range(2)]
        ret_x = []
        for t in range(2):
            if info.has_return:
                r = z3.FreshBool(f"x{loop.label}.ret")
                ret_x.append(mk_or(ret0[t], mk_and(pe[t], r)))
            else:
                ret_x.append(ret0[t])
        normal = [mk_and(pe[t], mk_not(brk_x[t]), mk_not(ret_x[t])) for t in range(2)]
        for t in range(2):
            g = to_bool(self.eval_in(loop.cond, t, xs[t], normal[t]))
            facts = [mk_not(g)]
            for c in cands:
                if not c.pair:
                    facts.append(c.fn(xs, pe, pe)[t])
                    if c.exact_fn is not None:
                        self.exact_facts.append(z3.Implies(normal[t], c.exact_fn(xs, pe, pe)[t]))
            self.q.add(z3.Implies(normal[t], z3.And(facts)))
        if exit_uniform:
            for c in cands:
                if c.pair:
                    for f in c.fn(xs, pe, pe):
                        self.q.add(z3.Implies(z3.And(normal[0], normal[1]), f))
        if barrier_epochs:
            epx = z3.FreshInt(f"x{loop.label}.ep")
            for e in ends:
                self.q.add(epx >= e)
            self.q.add(epx >= ep0)
            if consecutive and not info.has_break and not info.has_return:
                # Every iteration a thread starts it completes, and every completed one
                # executes a barrier (``consecutive``): so the code after the loop shares
                # an epoch with iteration A's or B's tail only if no modelled thread goes on
                # after it, and not with the code before the loop if either thread enters.
                none_enters = self.last_iteration(loop, s0, pe)
                for end, last in ((ends[0], last_a), (ends[-1], last_b)):
                    if last is not None:
                        self.q.add(z3.Implies(epx == end, last))
                if none_enters is not None:
                    self.q.add(z3.Or(none_enters, epx > ep0))
            self.epoch = epx
        if wait_counts:  # after every iteration's waits
            self.waits = self._fresh_waits(f"x{loop.label}.w", [w0, *wait_ends])
        for t, th in enumerate(self.th):
            th.vars = xs[t]
            th.ret = ret_x[t]
            th.brk, th.cont = saved[t]
            th.pred = mk_and(pe[t], mk_not(ret_x[t]))

