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
* loops are handed to :mod:`oracle.sdv_loops`.
"""

from __future__ import annotations

import z3

from kpl import ast as K
from kpl.fe.names import WARP_SIZE
from kpl.placement import BarrierKind
from oracle.sdv_encode import conv, fresh, to_bool, vec_elem
from oracle.sdv_expr import ExprEvaluator
from oracle.sdv_state import FALSE, BarrierHit, Unsupported, method_for, mk_and, mk_not, mk_or, simp


class StmtExecutor(ExprEvaluator, K.NodeVisitor):
    """Stage: one statement (or block) for both threads under their predicates."""

    def exec_loop(self, loop: K.Loop) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def exec_block(self, block: K.Block) -> None:
        for s in block.stmts:
            if self.dead():
                return
            self.exec_stmt(s)

    def exec_stmts(self, stmts: list[K.Stmt]) -> None:
        for s in stmts:
            if self.dead():
                return
            self.exec_stmt(s)

    def exec_stmt(self, s: K.Stmt) -> None:
        self.label = s.label
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
            self.assign_var(t, s.var.name, v)

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
        if s.kind.warp and self.same:
            # a warp barrier orders the two threads only when they are lanes of one warp;
            # for two warps it is no barrier at all (and cannot diverge between them)
            sw = self.same_warp()
            p1, p2 = mk_and(p1, sw), mk_and(p2, sw)
        if self.same:
            self.barriers.append(BarrierHit(s.label, (p1, p2)))
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


    def visit_Loop(self, s: K.Loop) -> None:
        self.exec_loop(s)

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
