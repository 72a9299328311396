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

Two *modes* are run by :mod:`oracle.sdv`: ``same`` (t1, t2 distinct threads of one block --
shared and global memory, epochs matter, barrier divergence is checked) and ``cross`` (t1, t2
in different blocks -- only global memory; barriers order nothing, so epochs are ignored).

The engine is built in stages, one module each, stacked by inheritance on one state:

=========================  ==============================================================
:mod:`oracle.sdv_state`    the machine state, solver, predicate combinators, dispatch
:mod:`oracle.sdv_memory`   memory accesses: locations, the access log, local arrays
:mod:`oracle.sdv_expr`     expression evaluation (z3 bit-vectors, uninterpreted floats)
:mod:`oracle.sdv_stmt`     statement execution (predicated lock-step)
:mod:`oracle.sdv_loops`    loops: exact unrolling or havoc-based abstraction
:mod:`oracle.sdv_invariants`  candidate loop invariants and Houdini
=========================  ==============================================================
"""

from __future__ import annotations

import z3

from kpl import ast as K
from oracle.sdv_encode import fresh, to_bool
from oracle.sdv_loops import LoopExecutor
from oracle.sdv_memory import Access
from oracle.sdv_state import TRUE, BarrierHit, QueryEngine, Unsupported, stmt_exprs


class Executor(LoopExecutor):
    """Runs one kernel for two symbolic threads in one mode (``same`` or ``cross``)."""

    def run(self) -> None:
        for c in self.base_constraints():
            self.q.add(c)
        for p in self.kernel.params:
            if p.var is not None:
                v = fresh(p.var.type, f"param.{p.name}")
                for t in range(2):
                    self.th[t].vars[p.var.name] = v
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
        self.exec_block(self.kernel.body)

    def abstract_loop(self, loop: K.Loop) -> None:
        """The loop abstraction, with reads of written arrays adversarial inside it (a thread's
        writes in earlier iterations are not in the state; :meth:`read_value`) and the arrays
        it updates marked as updated in the interval it ends in."""
        self.abstract_depth += 1
        try:
            super().abstract_loop(loop)
        finally:
            self.abstract_depth -= 1
        updated = {x.mem.name for s in K.walk_stmts(loop.body) for x in _updates(s)}
        updated |= {x.mem.name for s in loop.latch for x in _updates(s)}
        ep = self.epoch.as_long() if z3.is_int_value(self.epoch) else None  # type: ignore[attr-defined]
        for t in range(2):
            self.dirty[t] = self.dirty[t] | {(name, ep) for name in updated}


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
