"""Two-thread predicated lock-step symbolic execution of a KPL kernel (the engine of ``sdv``).

Semantics: SDV -- synchronous, delayed visibility ([AutoSync] Sec. III-A and Fig. 9;
[LockStep] for jumps).  Two arbitrary threads t1, t2 are executed *together*, statement by
statement, each with its own predicate; this is the two-thread reduction of GPUVerify
([WarpsAtomics] Sec. 2.3): a race or a divergent barrier between ANY two threads shows up for some
choice of the symbolic thread ids.

Every access of a shared/global array is logged with its predicate, its location, the barrier
*epoch* (a counter bumped by each executed barrier; two accesses can race only in the same
epoch) and the iteration numbers of its enclosing loops (for ``loop_depth``).  Reads of
shared/global memory return fresh values (adversarial abstraction, [WarpsAtomics] Sec. 2.3).

Two *modes* are run by :mod:`oracle.sdv.verifier`: ``same`` (t1, t2 distinct threads of one block --
shared and global memory, epochs matter, barrier divergence is checked) and ``cross`` (t1, t2
in different blocks -- only global memory; block barriers order nothing there, only grid
barriers (``BarrierKind.GRID``, cooperative groups' ``grid_group::sync``) bump the epoch,
and their divergence across blocks is checked).

The engine is built in stages, one module each, stacked by inheritance on one state, each
importing only the stages below it (the layers of :mod:`oracle.sdv`):

=============================  ==========================================================
:mod:`oracle.sdv.state`        the machine state and access log, solver, predicate
                               combinators, dispatch
:mod:`oracle.sdv.expr`         expression evaluation (z3 bit-vectors, uninterpreted floats)
:mod:`oracle.sdv.memory`       memory accesses: locations, ``Load``/``Atomic``, local arrays
:mod:`oracle.sdv.stmt`         statement execution (predicated lock-step)
:mod:`oracle.sdv.loops`        loops: exact unrolling or havoc-based abstraction (its
                               ``visit_Loop`` joins the statement dispatch)
:mod:`oracle.sdv.invariants`   candidate loop invariants and Houdini (below ``loops``: it
                               runs iterations through the ``LoopRunner`` protocol)
=============================  ==========================================================

Slicing (this module): a variable whose value can decide nothing -- no address, guard,
barrier or annotation depends on it (:func:`oracle.sdv.slice.relevant_vars`), e.g. the
float accumulator ``Csub += As[ty][k] * Bs[k][tx]`` -- is not computed: the memory reads of
its right-hand side are still executed and logged (race detection sees every ACCESS), and
the variable gets a fresh value per thread.  Sound by construction (an unconstrained value
over-approximates the real one); it only removes work, e.g. the ever-growing term of
``x = x * 3 + i`` repeated a thousand times.  A stored value that is sliced is therefore
fresh per thread, so a check that two writes store equal values (benign writes) sees values
that may differ and conservatively keeps the race; values stored at a variable-free index
(``s[0] = v``, the usual benign write) are not sliced, so such checks keep their precision.
"""

from __future__ import annotations

import z3

from kpl import ast as K
from oracle.sdv.encode import fresh, int_const, to_bool
from oracle.sdv.invariants import HoudiniMemo
from oracle.sdv.loops import LoopExecutor
from oracle.sdv.slice import relevant_vars
from oracle.sdv.state import (
    TRUE,
    Access,
    BarrierHit,
    QueryEngine,
    Unsupported,
    expr_pure,
    stmt_exprs,
)


class Executor(LoopExecutor):
    """Runs one kernel for two symbolic threads in one mode (``same`` or ``cross``).
    ``memo``: Houdini results shared with earlier runs (:class:`HoudiniMemo`), or None."""

    def __init__(self, kernel: K.Kernel, mode: str, engine: QueryEngine, *,
                 max_unroll: int = 64, unroll_budget: int = 512,
                 memo: HoudiniMemo | None = None, view: K.Space | None = None) -> None:
        super().__init__(kernel, mode, engine, max_unroll=max_unroll,
                         unroll_budget=unroll_budget)
        self.memo = memo
        self.view = view

    def run(self) -> None:
        for c in self.base_constraints():
            self.q.add(c)
        for p in self.kernel.params:
            if p.var is not None:
                v = fresh(p.var.type, f"param.{p.name}")
                for t in range(2):
                    self.th[t].vars[p.var.name] = v
                if p.var.type.kind in ("int", "bool"):
                    self.params[p.name] = v  # for witnesses (SDVOracle._witness)
        in_body = {id(s.cond) for s in K.walk_stmts(self.kernel.body) if isinstance(s, K.Assume)}
        body_conds = [s.cond for s in K.walk_stmts(self.kernel.body) if isinstance(s, K.Assume)]
        for r in self.kernel.requires:
            if id(r) in in_body or r in body_conds:
                continue
            for t in range(2):
                try:
                    self.q.add(to_bool(self.ev(r, t, TRUE)))
                except (Unsupported, KeyError):
                    pass
        for fact in self.kernel.launch.assumptions:  # the host launch's relations (kpl.launch)
            try:
                self.q.add(to_bool(self.ev(fact, 0, TRUE)))
            except (Unsupported, KeyError):
                pass  # an assumption not modelled is dropped: fewer assumptions, still sound
        self.exec_block(self.kernel.body)

    # ------------------------------------------------------------------ slicing

    def sliced(self, name: str) -> bool:
        """``name``'s value can decide nothing (see the module docstring)."""
        if self._kept is None:
            self._kept = relevant_vars(self.kernel, fixed_stores=True,
                                       skipped=self.skipped_loops())
        return name not in self._kept

    def touch(self, e: K.Expr, t: int, pred: z3.BoolRef) -> None:
        """Execute the memory reads of ``e`` for thread ``t`` without computing its value.
        Where a read is predicated inside ``e`` (``?:``, ``&&``, ``||``) or ``e`` has an
        atomic or a barrier intrinsic, ``e`` is evaluated in full."""
        if not _plain(e):
            self.ev(e, t, pred)
            return
        stack = [e]
        while stack:
            x = stack.pop()
            if isinstance(x, K.Load):
                if not self._unlogged(x):
                    self.ev(x, t, pred)
            elif isinstance(x, K.Unary):
                stack.append(x.operand)
            elif isinstance(x, K.Binary):
                stack += [x.right, x.left]
            elif isinstance(x, K.Cast):
                stack.append(x.operand)
            elif isinstance(x, K.Call):
                stack += reversed(x.args)
            elif isinstance(x, K.Field):
                stack.append(x.base)
            elif isinstance(x, K.VecInit):
                stack += reversed(x.parts)

    def _unlogged(self, e: K.Load) -> bool:
        """A read whose value is not needed does nothing observable: its memory cannot race
        (local, constant), or the two threads are in different blocks and it is not global
        memory (``log`` drops it), or nothing ever writes the array (a read conflicts only
        with a write or an atomic), and its index reads no memory."""
        mem = e.mem
        if mem.can_race and (self.same or mem.space == K.Space.GLOBAL) \
                and mem.name not in self.facts.read_only:
            return False
        return expr_pure(e.index)

    def visit_Decl(self, s: K.Decl) -> None:
        if s.array is not None or s.init is None or not self.sliced(s.var.name):
            super().visit_Decl(s)
            return
        for t in range(2):
            self.touch(s.init, t, self.th[t].pred)
            self.th[t].vars[s.var.name] = fresh(s.var.type, f"sliced.{s.var.name}")

    def assign_Var(self, s: K.Assign, t: int) -> None:
        tgt = s.target
        assert isinstance(tgt, K.Var)
        if not self.sliced(tgt.name):
            super().assign_Var(s, t)
            return
        self.touch(s.value, t, self.th[t].pred)
        # fresh whatever the predicate: it over-approximates the old value as well
        self.th[t].vars[tgt.name] = fresh(tgt.type, f"sliced.{tgt.name}")

    def abstract_loop(self, loop: K.Loop) -> None:
        """The loop abstraction, with reads of written arrays adversarial inside it (a thread's
        writes in earlier iterations are not in the state; :meth:`read_value`) and the arrays
        it updates marked as updated in the interval it ends in."""
        ep0 = int_const(self.epoch)
        before = list(self.dirty)
        self.abstract_depth += 1
        try:
            super().abstract_loop(loop)
        finally:
            self.abstract_depth -= 1
        updated = {x.mem.name for s in K.walk_stmts(loop.body) for x in _updates(s)}
        updated |= {x.mem.name for s in loop.latch for x in _updates(s)}
        ep = int_const(self.epoch)
        if ep is None and ep0 is not None and self.same:
            # the interval after the loop is named by its symbolic epoch, at least ep0
            # (``read_value``); an array the loop updates only before a barrier closing
            # every iteration has no update of the loop in that interval
            self.epoch_floor = max(self.epoch_floor or 0, ep0)
            updated = {name for name in updated if not _closed(loop, self.kernel.memories.get(name))}
            self.dirty = before  # the iterations' own marks: replaced by ``updated``
        for t in range(2):
            self.dirty[t] = self.dirty[t] | {(name, ep) for name in updated}


def _plain(e: K.Expr) -> bool:
    """No read in ``e`` is predicated, and evaluating ``e`` does nothing but read memory."""
    for x in K.walk_expr(e):
        if isinstance(x, (K.Cond, K.Atomic)):
            return False
        if isinstance(x, K.Binary) and x.op in ("&&", "||"):
            return False
        if isinstance(x, K.Call) and x.name.startswith("__syncthreads"):
            return False
    return True


def _closed(loop: K.Loop, mem: K.Memory | None) -> bool:
    """Every iteration of ``loop`` ends with a barrier ordering ``mem`` after its last update
    of ``mem``: the body's top level (through inlined calls) has such a barrier with no
    update after it, the latch updates nothing, and nothing leaves an iteration early."""
    if mem is None or any(_updates(s) for s in loop.latch):
        return False
    body = list(K.walk_stmts(loop.body))
    if any(isinstance(s, (K.Break, K.Continue, K.Return)) for s in body):
        return False
    stmts = list(loop.body.stmts)
    last = None
    for i, s in enumerate(stmts):
        inner = s.body.stmts if isinstance(s, K.Inline) else [s]
        if any(isinstance(x, K.Barrier) and not x.kind.warp and mem.space in x.fences for x in inner):
            last = i
    if last is None:
        return False
    return not any(x.mem.name == mem.name for y in K.walk_stmts(K.Block(stmts[last + 1:]))
                   for x in _updates(y))


def _updates(s: K.Stmt) -> list[K.MemElem | K.Atomic]:
    """The stores and atomics statement ``s`` performs itself."""
    out: list[K.MemElem | K.Atomic] = []
    if isinstance(s, K.Assign) and isinstance(s.target, K.MemElem):
        out.append(s.target)
    for e in stmt_exprs(s):
        out.extend(x for x in K.walk_expr(e) if isinstance(x, K.Atomic))
    return out


__all__ = ["Access", "BarrierHit", "Executor",
           "QueryEngine", "Unsupported"]
