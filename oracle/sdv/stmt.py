"""Statement execution of the SDV executor: predicated lock-step for two threads.

Stage: statements ([LockStep] lock-step semantics; [AutoSync] Sec. III-A and Fig. 9).  The
two threads execute each statement *together*, each under its own predicate; a visitor over
the statement classes of :mod:`kpl.ast` (``visit_<ClassName>``, through
:class:`kpl.ast.NodeVisitor`) and over assignment targets (``assign_<ClassName>``):

* ``if`` runs both arms, under ``p ∧ c`` and ``p ∧ ¬c``;
* ``break``/``continue``/``return`` are per-thread masks: ``break`` leaves the loop (or the
  ``switch``), ``continue`` is re-enabled before the loop's latch, ``return`` leaves the
  kernel (or the ``Inline`` block);
* a barrier bumps the epoch when either thread executes it, and records both predicates for
  the divergence check (``same`` mode); a ``__syncwarp()`` does so only when the two threads
  are lanes of one warp (so it orders nothing across warps, and diverges only when lanes of
  one warp disagree) -- [WarpsAtomics] Sec. 3: without lock-step, a warp is just threads;
* a loop has no visitor here: the layer above (:mod:`oracle.sdv.loops`) adds
  ``visit_Loop`` to this same dispatch and runs the body through :meth:`exec_block`, so the
  mutual recursion of statements and loops is one dispatch on the node class, not two
  modules importing each other;
* an :class:`~kpl.ast.Assert` is checked at once, for both threads under their predicates
  (:meth:`StmtExecutor.visit_Assert`; GPUVerify's annotations, the two-thread reading of
  ``__other_int`` & co. in :meth:`StmtExecutor.ev_Spec`), and never assumed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import z3

from kpl import ast as K
from kpl.placement import WARP_SIZE, BarrierKind
from oracle.base import AccessKind
from oracle.sdv.encode import Val, conv, fresh, is_false, to_bool, vec_elem
from oracle.sdv.memory import MemoryAccesses, byte_range
from oracle.sdv.state import (
    FALSE,
    TRUE,
    BarrierHit,
    Unsupported,
    method_for,
    mk_and,
    mk_not,
    mk_or,
    simp,
)


@dataclass(frozen=True)
class AssertFailure:
    """An assertion some thread can reach with its condition false (from the model)."""

    label: int
    kind: str                                 # Assert.kind: assert/requires/ensures/invariant
    thread: tuple[int, int, int]
    block: tuple[int, int, int]


#: Spec names whose value depends on the other thread of the pair
_PAIR_SPECS = ("other", "same_group")


def pair_assert(s: K.Assert) -> bool:
    """The assertion relates the two threads (``__other_int``, ``__same_group``)."""
    return any(isinstance(x, K.Spec) and x.name in _PAIR_SPECS for x in K.walk_expr(s.cond))


class StmtExecutor(MemoryAccesses, K.NodeVisitor):
    """Stage: one statement (or block) for both threads under their predicates."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.failed_asserts: list[AssertFailure] = []  # assertions found to fail, in order
        self._spec_offsets: dict[str, z3.BitVecRef] = {}  # the access an ``*_implies`` binds

    def snapshot(self) -> tuple[Any, ...]:
        return (super().snapshot(), len(self.failed_asserts))

    def restore(self, snap: tuple[Any, ...]) -> None:
        base, n = snap
        super().restore(base)
        del self.failed_asserts[n:]  # a speculative run's failures are not the kernel's

    def exec_block(self, block: K.Block) -> None:
        self.exec_stmts(block.stmts)

    def exec_stmts(self, stmts: list[K.Stmt]) -> None:
        for s in stmts:
            if self.dead():
                return
            self.exec_stmt(s)

    def exec_stmt(self, s: K.Stmt) -> None:
        self.label = s.label
        self.q.tick()  # the deadline between queries too: a long unrolling asks few
        try:
            self.visit(s)
        except Unsupported as exc:
            self.unknown(f"unsupported: {exc}", s.label)
            # havoc what the statement may have assigned so that later code stays sound
            if isinstance(s, (K.Decl, K.Assign)):
                tgt = s.var if isinstance(s, K.Decl) else s.target
                if isinstance(tgt, K.Var):
                    for t in range(2):
                        self.th[t].vars[tgt.name] = fresh(tgt.type, f"unsup.{tgt.name}")

    def generic_visit(self, node: object) -> None:
        raise Unsupported(f"statement {type(node).__name__}")

    # ------------------------------------------------------------------ leaves

    def visit_Decl(self, s: K.Decl) -> None:
        for t in range(2):
            pred = self.th[t].pred
            if s.array is not None:
                self.th[t].vars["@" + s.array.name] = self.local_array(s.array)
                continue
            if s.init is not None:
                v = conv(self.ev(s.init, t, pred), s.init.type, s.var.type)
                if isinstance(v, z3.ExprRef):
                    v = simp(v)
            else:
                v = fresh(s.var.type, f"uninit.{s.var.name}")
            # not ite(pred, v, old): before its declaration the variable is out of scope, and
            # every use is dominated by it (C++ forbids jumping past an initialisation), so
            # under a false pred the old value is never read.  Keeps a loop variable declared
            # in an abstracted loop's body (``for (int a = tid; ...)``) concrete; later
            # assignments drop this pred too (ThreadState.value_guard)
            self.th[t].vars[s.var.name] = v
            if s.init is not None:
                self.th[t].scope[s.var.name] = pred
            else:  # ``int x; goto past;`` is legal: keep every conjunct for x
                self.th[t].scope.pop(s.var.name, None)

    def visit_Assign(self, s: K.Assign) -> None:
        for t in range(2):
            method_for(type(self), "assign_", s.target, "assign_unsupported")(self, s, t)

    def visit_ExprStmt(self, s: K.ExprStmt) -> None:
        for t in range(2):
            self.ev(s.expr, t, self.th[t].pred)

    def same_warp(self, size: int = WARP_SIZE) -> z3.BoolRef:
        """The two threads are lanes of one warp of ``size`` (same block assumed: ``same``
        mode): equal linear thread id divided by the warp size."""
        return z3.UDiv(self.linear_tid(0), size) == z3.UDiv(self.linear_tid(1), size)

    def visit_Barrier(self, s: K.Barrier) -> None:
        p1, p2 = self.th[0].pred, self.th[1].pred
        if s.kind is BarrierKind.SYNCWARP_MASKED:
            # orders nothing here (sound for races); the partial mask itself is not modelled
            self.unknown("unsupported: __syncwarp with a mask other than the full warp "
                         "(0xffffffff)", s.label)
            return
        if not self.same:
            # across blocks only a grid barrier orders: it bumps the grid epoch when either
            # thread runs it; the two threads must both run it (else: divergence across blocks)
            if s.kind is BarrierKind.GRID:
                # inside an abstracted loop too: such a loop runs the two blocks' threads in
                # one iteration with relational invariants (LoopInfo.lockstep), so a uniform
                # loop's predicates agree and a divergence is one
                self.barriers.append(BarrierHit(s.label, (p1, p2)))
                self.epoch = simp(z3.If(mk_or(p1, p2), self.epoch + 1, self.epoch))
            return
        if s.kind.warp and self.same and self.kernel.launch.threads_per_block > WARP_SIZE:
            # a warp barrier orders the two threads only when they are lanes of one warp;
            # for two warps it is no barrier at all (and cannot diverge between them).  A
            # block of one warp: any two of its threads are lanes of it -- the barrier is the
            # block's, its epoch stays a constant (issue 28, item 5: sum0/sum1 with
            # __syncwarp()); a symbolic block counts by the most threads it may have
            sw = self.same_warp()
            p1, p2 = mk_and(p1, sw), mk_and(p2, sw)
        if self.same:
            self.barriers.append(BarrierHit(s.label, (p1, p2)))
        if self.view is not None and self.view not in s.fences:
            return  # synchronises execution (divergence above), orders no access of the view
        fired = mk_or(p1, p2)
        self.epoch = simp(z3.If(fired, self.epoch + 1, self.epoch))

    def visit_NamedBarrier(self, s: K.NamedBarrier) -> None:
        self.named.append(s.label)

    def visit_Assume(self, s: K.Assume) -> None:
        for t in range(2):
            c = to_bool(self.ev(s.cond, t, self.th[t].pred))
            self.q.add(z3.Implies(self.th[t].pred, c))

    def visit_Annotation(self, s: K.Annotation) -> None:
        pass

    def visit_Assert(self, s: K.Assert) -> None:
        """Check ``s.cond`` for each thread that executes it (a ``global_*`` kind: for each
        thread, GPUVerify's global annotations).  It is not assumed afterwards:
        where it holds, the path facts imply it already; where it fails, assuming it would
        cut the failing executions and hide what follows (a race after a false invariant
        is still reported).  In ``cross``
        mode (threads of two blocks) only assertions relating the two threads are checked
        (and all of them for one-thread blocks, where ``same`` mode has no pair): every
        other assertion is about one thread and ``same`` mode checks it for any thread of
        any block."""
        if not (self.same or pair_assert(s) or self.block_may_be_single()):
            return  # checked in ``same`` mode
        na = len(self.accesses)
        conds: list[tuple[int, z3.BoolRef, z3.BoolRef]] = []  # (thread, predicate, condition)
        every = s.kind.startswith("global_")  # GPUVerify's global: enabled or not
        try:
            for t in range(2):
                pred = self.th[t].pred
                if every or not is_false(pred):
                    conds.append((t, TRUE if every else pred, to_bool(self.ev(s.cond, t, pred))))
        finally:
            del self.accesses[na:]  # an annotation's reads are not the kernel's accesses
        fails = [(t, mk_and(p, mk_not(c))) for t, p, c in conds]
        fail = mk_or(*[f for _, f in fails])
        if not is_false(fail):
            r, m, _ = self.check_witness(fail)
            if r == z3.sat and m is not None:
                t = next((t for t, f in fails if z3.is_true(m.eval(f, model_completion=True))),
                         fails[0][0])

                def ids(xs: tuple[Any, ...]) -> tuple[int, int, int]:
                    v = [m.eval(x, model_completion=True).as_long() for x in xs]
                    return (v[0], v[1], v[2])

                self.failed_asserts.append(AssertFailure(s.label, s.kind, ids(self.tid[t]),
                                                         ids(self.bid[t])))
            elif r == z3.unknown:
                self.unknown("solver gave up on an assertion", s.label)

    # ------------------------------------------------------------------ specifications

    def ev_Spec(self, e: K.Spec, t: int, pred: z3.BoolRef) -> Val:
        """GPUVerify's specification functions (see :class:`kpl.ast.Spec`)."""
        if e.name == "other":
            o = 1 - t
            return self.ev(e.args[0], o, self.th[o].pred)
        if e.name == "same_group":
            return z3.BoolVal(self.same)
        if e.name == "enabled":  # ``__enabled()`` of the other thread: its predicate
            return pred
        if e.name in ("read", "write", "read_offset", "write_offset", "read_implies",
                      "write_implies") and e.mem is not None:
            return self._access_spec(e, t, pred)
        raise Unsupported(e.name if e.name.startswith("unsupported") else
                          f"specification '{e.name}'")

    def _since_barrier(self, e: K.Spec, t: int) -> list[tuple[z3.BoolRef, z3.BitVecRef]]:
        """(happened, byte offset) of thread ``t``'s accesses of ``e.mem`` of ``e``'s kind in
        the current barrier interval.  Abstracted loops contribute their arbitrary
        iterations: "some access" is then existential in the checked query, which covers
        every real iteration (the solver picks it), so a check stays sound."""
        assert e.mem is not None
        if not self.same and e.mem.space != K.Space.GLOBAL:
            raise Unsupported(f"'{e.name}' of shared memory between threads of two blocks")
        kind = AccessKind.READ if e.name.startswith("read") else AccessKind.WRITE
        out = []
        same: list[z3.BoolRef] = []
        for a in self.accesses:
            if a.thread != t or a.mem.name != e.mem.name or a.kind != kind:
                continue
            rng = byte_range(a)
            if rng is None:
                raise Unsupported(f"'{e.name}' of '{e.mem.name}': no byte layout")
            same.append(simp(a.epoch == self.epoch))
            out.append((mk_and(a.pred, same[-1]), rng[0]))
        # barriers decide these facts: logged for the answers shared across candidates
        # (``events``); a symbolic one as an object equal to nothing of another run
        self.events.append(("since", tuple(z3.is_true(x) for x in same))
                           if all(z3.is_true(x) or z3.is_false(x) for x in same) else object())
        return out

    def _access_spec(self, e: K.Spec, t: int, pred: z3.BoolRef) -> Val:
        assert e.mem is not None
        key = f"{e.name.split('_')[0]}:{e.mem.name}"
        if e.name.endswith("_offset"):
            bound = self._spec_offsets.get(key)
            if bound is not None:
                return z3.Extract(31, 0, bound)
            # any one of the accesses (GPUVerify's logged one): a fresh value that is one of
            # them when there is one -- adversarial in a checked assertion
            o = z3.FreshConst(z3.BitVecSort(64), f"{key}.offset")
            accs = self._since_barrier(e, t)
            self.q.add(z3.Or([z3.And(h, o == off) for h, off in accs] +
                             [mk_not(mk_or(*[h for h, _ in accs]))]))
            return z3.Extract(31, 0, o)
        accs = self._since_barrier(e, t)
        if e.name in ("read", "write"):
            return mk_or(*[h for h, _ in accs])
        # read_implies / write_implies: the condition for EVERY such access
        parts = []
        for h, off in accs:
            self._spec_offsets[key] = off
            try:
                parts.append(z3.Implies(h, to_bool(self.ev(e.args[0], t, pred))))
            finally:
                del self._spec_offsets[key]
        return z3.And(parts) if parts else TRUE

    def visit_Break(self, s: K.Break) -> None:
        for th in self.th:
            th.brk = mk_or(th.brk, th.pred)
            th.pred = FALSE

    def visit_Continue(self, s: K.Continue) -> None:
        for th in self.th:
            th.cont = mk_or(th.cont, th.pred)
            th.pred = FALSE

    def visit_Return(self, s: K.Return) -> None:
        res = self.inline_result[-1] if self.inline_result else None
        for t, th in enumerate(self.th):
            if s.value is not None:
                v = self.ev(s.value, t, th.pred)
                if res is not None:
                    self.assign_var(t, res.name, conv(v, s.value.type, res.type))
            if not self.inline_result and not self.tags:  # the kernel's own straight-line return
                th.exit = mk_or(th.exit, th.pred)
            th.ret = mk_or(th.ret, th.pred)
            th.pred = FALSE

    # ------------------------------------------------------------------ assignment targets

    def assign_Var(self, s: K.Assign, t: int) -> None:
        assert isinstance(s.target, K.Var)
        tgt = s.target
        v = conv(self.ev(s.value, t, self.th[t].pred), s.value.type, tgt.type)
        if isinstance(v, z3.ExprRef):
            v = simp(v)
        self.assign_var(t, tgt.name, v)

    def assign_VarField(self, s: K.Assign, t: int) -> None:
        assert isinstance(s.target, K.VarField)
        th = self.th[t]
        tgt = s.target
        v = self.ev(s.value, t, th.pred)
        old = th.vars.get(tgt.var.name)
        if not isinstance(old, dict):
            old = fresh(tgt.var.type, f"undef.{tgt.var.name}")
        assert isinstance(old, dict)
        new = dict(old)
        new[tgt.name] = conv(v, s.value.type, vec_elem(tgt.var.type))
        self.assign_var(t, tgt.var.name, new)

    def assign_unsupported(self, s: K.Assign, t: int) -> None:
        raise Unsupported(f"assignment target {type(s.target).__name__}")

    # ------------------------------------------------------------------ compound statements

    def visit_If(self, s: K.If) -> None:
        pre = self.preds()
        cs = [to_bool(self.ev(s.cond, t, pre[t])) for t in range(2)]
        if self.same:  # for the optional fact "this guard is uniformly true" (oracle.sdv.facts)
            self.guards.append((s.label, pre[0], cs[0]))
        for t in range(2):
            self.th[t].pred = mk_and(pre[t], cs[t])
        if not self.dead():
            self.exec_block(s.then)
        if s.els is not None:
            for t in range(2):
                self.th[t].pred = mk_and(pre[t], mk_not(cs[t]))
            if not self.dead():
                self.label = s.els.label
                self.exec_block(s.els)
        for t, th in enumerate(self.th):
            th.pred = mk_and(pre[t], mk_not(th.ret), mk_not(th.brk), mk_not(th.cont))


    def visit_Switch(self, s: K.Switch) -> None:
        pre = self.preds()
        saved = [th.brk for th in self.th]
        for th in self.th:
            th.brk = FALSE
        self.exec_block(s.body)
        for t, th in enumerate(self.th):
            th.brk = saved[t]
            th.pred = mk_and(pre[t], mk_not(th.ret), mk_not(th.cont))

    def visit_Inline(self, s: K.Inline) -> None:
        pre = self.preds()
        saved = [th.ret for th in self.th]
        for th in self.th:
            th.ret = FALSE
        self.inline_result.append(s.result)
        try:
            self.exec_block(s.body)
        finally:
            self.inline_result.pop()
        for t, th in enumerate(self.th):
            th.ret = saved[t]
            th.pred = pre[t]


def fence_views(kernel: K.Kernel) -> list[K.Space | None]:
    """The views a check runs in: ``[None]`` (one epoch orders every space) unless some
    barrier orders only some spaces (OpenCL's ``barrier(CLK_LOCAL_MEM_FENCE)``); then one run
    per space that can race, each with an epoch bumped only by the barriers ordering it."""
    if all(s.fences == K.ALL_FENCES for s in K.walk_stmts(kernel.body) if isinstance(s, K.Barrier)):
        return [None]
    return [*sorted(K.ALL_FENCES, key=lambda sp: sp.value)]
