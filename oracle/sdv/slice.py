"""Slicing of the SDV executor: which variables and loops can decide a verdict.

Stage: slicing, static facts of a kernel computed once per run.  :func:`relevant_vars`: the
variables that can reach an address of a conflicting access, a guard, or an annotation.  A
float accumulator such as ``Csub += As[ty][k] * Bs[k][tx]`` only ever flows into stored
data: its invariants can neither decide a race nor help prove an invariant about a variable
that does (that variable's update never reads it), so the loop abstraction guesses none for
it (:mod:`oracle.sdv.invariants`) and the executor need not compute its value
(:meth:`oracle.sdv.executor.Executor.sliced`).  :func:`skippable_loops`: loops that move only
such data, which the executor does not run at all.  :class:`LoopFacts`: what a loop assigns.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

from kpl import ast as K
from kpl.ast import CType
from oracle.sdv.state import IMPURE_PREFIXES, expr_pure, expr_vars, stmt_exprs


def _written_memories(kernel: K.Kernel) -> set[str]:
    """Names of the memories some statement stores to or updates atomically: reads of any
    other memory can never be one side of a conflicting pair."""
    out: set[str] = set()
    for s in K.walk_stmts(kernel.body):
        if isinstance(s, K.Assign) and isinstance(s.target, K.MemElem):
            out.add(s.target.mem.name)
        for f in dataclasses.fields(s):
            v = getattr(s, f.name)
            for e in v if isinstance(v, tuple) else (v,):
                if isinstance(e, K.Expr):  # type: ignore[arg-type,misc]
                    out.update(x.mem.name for x in K.walk_expr(e) if isinstance(x, K.Atomic))
    return out


def _value_flow(e: K.Expr, written: set[str], deps: set[str], seeds: set[str]) -> None:
    """Split the variables of a stored/assigned value ``e``: those its result depends on go to
    ``deps``; those that decide an access (an index into a written memory) go to ``seeds``.
    A memory access under a ``?:``, ``&&`` or ``||`` is predicated by the condition, so then
    every variable of ``e`` is a seed."""
    guarded = False
    for x in K.walk_expr(e):
        if isinstance(x, K.Cond) or (isinstance(x, K.Binary) and x.op in ("&&", "||")):
            if not expr_pure(x):
                guarded = True
        if isinstance(x, K.Load) and x.mem.space == K.Space.LOCAL:
            deps.add("@" + x.mem.name)
            deps |= expr_vars(x.index)
        elif isinstance(x, (K.Load, K.Atomic)) and x.mem.name in written:
            seeds |= expr_vars(x.index)
        elif isinstance(x, K.Var):
            deps.add(x.name)
    if guarded:
        seeds |= expr_vars(e)


def relevant_vars(kernel: K.Kernel, fixed_stores: bool = False,
                  skipped: frozenset[int] = frozenset()) -> set[str]:
    """The variables (``@name``: local arrays) whose values can decide a verdict: those that
    flow, through assignments (flow-insensitively), into an index of a written memory, a
    guard, a barrier or an annotation.  Every other variable only carries data to memory.
    ``fixed_stores``: also those flowing into a value stored at a variable-free index of
    shared/global memory (``s[0] = v``), which a benign-write check compares.  ``skipped``:
    labels of loops that are not executed (:func:`skippable_loops`), left out."""
    written = _written_memories(kernel)
    deps: dict[str, set[str]] = {}
    seeds: set[str] = set()
    for s, ret_to in _stmts_outside(kernel.body, skipped, None):
        tgt: str | None = None
        value: K.Expr | None = None
        if isinstance(s, K.Return) and ret_to is not None:
            tgt, value = ret_to, s.value  # an inlined function's result, not a guard
        elif isinstance(s, K.Decl):
            tgt, value = s.var.name, s.init
        elif isinstance(s, K.Assign):
            t = s.target
            value = s.value
            if isinstance(t, K.Var):
                tgt = t.name
            elif isinstance(t, K.VarField):
                tgt = t.var.name
            elif t.mem.space == K.Space.LOCAL:
                tgt = "@" + t.mem.name
                deps.setdefault(tgt, set()).update(expr_vars(t.index))
            else:
                seeds |= expr_vars(t.index)
                tgt = ""  # stored data of shared/global memory: nobody reads it back
                if fixed_stores and not expr_vars(t.index):
                    seeds |= expr_vars(s.value)
        if tgt is not None:
            if value is not None:
                _value_flow(value, written, deps.setdefault(tgt, set()), seeds)
            continue
        if isinstance(s, K.Inline):
            continue  # ``result`` is assigned by the body's return, not read here
        for f in dataclasses.fields(s):
            v = getattr(s, f.name)
            for e in v if isinstance(v, tuple) else (v,):
                if isinstance(e, K.Expr):  # type: ignore[arg-type,misc]
                    seeds |= expr_vars(e)
    out = set(seeds)
    todo = list(seeds)
    while todo:
        for d in deps.get(todo.pop(), ()):
            if d not in out:
                out.add(d)
                todo.append(d)
    return out


def _stmts_outside(block: K.Block, skipped: frozenset[int],
                   ret_to: str | None) -> Iterator[tuple[K.Stmt, str | None]]:
    """:func:`kpl.ast.walk_stmts`, without the loops labelled in ``skipped`` (whole); each
    statement with the result variable of its innermost enclosing :class:`K.Inline` (None:
    none, or a function without a result), into which a ``return`` there stores its value."""
    for stmt in block.stmts:
        if isinstance(stmt, K.Loop) and stmt.label in skipped:
            continue
        yield stmt, ret_to
        inner = ret_to
        if isinstance(stmt, K.Inline):
            inner = stmt.result.name if stmt.result is not None else None
        for sub in K.child_blocks(stmt):
            yield from _stmts_outside(sub, skipped, inner)
        if isinstance(stmt, K.Loop):
            for s in stmt.latch:
                yield s, ret_to


#: expressions a skipped loop may contain: values and reads, nothing the executor would
#: answer "unknown" for (a ``Spec``) and no update of memory (an ``Atomic``)
_DATA_EXPRS = (K.Const, K.Var, K.Builtin, K.Unary, K.Binary, K.Cond, K.Cast, K.Load, K.Call,
               K.Field, K.VecInit)


def _in_inline(block: K.Block, in_call: bool) -> Iterator[tuple[K.Stmt, bool]]:
    """:func:`kpl.ast.walk_stmts` (latches of nested loops included), each statement with
    whether it is inside an inlined call (where ``return`` only leaves that call)."""
    for stmt in block.stmts:
        yield stmt, in_call
        for sub in K.child_blocks(stmt):
            yield from _in_inline(sub, in_call or isinstance(stmt, K.Inline))
        if isinstance(stmt, K.Loop):
            for s in stmt.latch:
                yield s, in_call


def _data_only(loop: K.Loop, written: set[str]) -> bool:
    """``loop`` (guard, body, latch) has no barrier, annotation, ``return`` from the kernel
    (one inside an inlined call only leaves that call), impure call, atomic or write to shared/global memory, and reads only memory that nothing in the
    kernel writes: it can only move data between per-thread variables."""
    exprs = [loop.cond]
    for s, in_call in [*_in_inline(loop.body, False), *((s, False) for s in loop.latch)]:
        if not isinstance(s, (K.Decl, K.Assign, K.ExprStmt, K.If, K.Loop, K.Switch,
                              K.Break, K.Continue, K.Inline)) \
                and not (isinstance(s, K.Return) and in_call):
            return False
        if isinstance(s, K.Assign) and isinstance(s.target, K.MemElem) \
                and s.target.mem.space != K.Space.LOCAL:
            return False
        exprs += stmt_exprs(s)
    for e in exprs:
        for x in K.walk_expr(e):
            if not isinstance(x, _DATA_EXPRS) or (  # a Spec (annotation), an Atomic
                    isinstance(x, K.Call) and x.name.startswith(("__sync", "__kpl_bar",
                                                                 *IMPURE_PREFIXES))):
                return False
            if isinstance(x, K.Load) and x.mem.can_race and x.mem.name in written:
                return False
    return True


def skippable_loops(kernel: K.Kernel) -> frozenset[int]:
    """Labels of the loops whose execution can decide no verdict, so that the executor need
    not run them (:meth:`oracle.sdv.loops.LoopExecutor.skip_loop`): data-only loops
    (:func:`_data_only`) none of whose assigned variables is relevant once the skipped loops
    themselves are left out (their guards and counters then decide nothing).  A greatest
    fixpoint: start from every data-only loop and drop those that assign a relevant variable
    until none does; dropping a loop only adds relevant variables, so it ends.  E.g. the
    grid-stride accumulation ``for (p = first + a; p < last; p += ACC) s += x[p] * y[p];``
    of a dot product, whose ``s`` is only stored.  Why skipping is sound: every access it
    would make is a read that no write conflicts with, no barrier is in it, it leaves no
    enclosing statement, and the variables it assigns are havocked after it, which
    over-approximates every way it could have ended (a non-terminating loop included)."""
    written = _written_memories(kernel)
    assigned = {s.label: LoopFacts.of(s).modified.keys() for s in K.walk_stmts(kernel.body)
                if isinstance(s, K.Loop) and _data_only(s, written)}
    skipped = frozenset(assigned)
    while skipped:
        relevant = relevant_vars(kernel, fixed_stores=True, skipped=skipped)
        keep = frozenset(label for label in skipped if not assigned[label] & relevant)
        if keep == skipped:
            break
        skipped = keep
    return skipped


class LoopFacts(K.NodeVisitor):
    """Collects, over a loop's body and latch (nested statements included, in text order),
    the assigned variables with their assigned values, and whether a barrier occurs."""

    def __init__(self) -> None:
        self.modified: dict[str, CType] = {}
        self.assigns: dict[str, list[K.Expr | None]] = {}  # None: not a plain value
        self.has_barrier = False

    @classmethod
    def of(cls, loop: K.Loop) -> LoopFacts:
        """The facts of ``loop``'s body and latch."""
        facts = cls()
        facts.visit(loop.body)
        for s in loop.latch:
            facts.visit(s)
        return facts

    def visit(self, node: object) -> object:
        if isinstance(node, K.Stmt):
            for e in stmt_exprs(node):
                for x in K.walk_expr(e):
                    if isinstance(x, K.Call) and x.name.startswith("__syncthreads"):
                        self.has_barrier = True
        return super().visit(node)

    def visit_Decl(self, s: K.Decl) -> None:
        if s.array is not None:
            self.modified["@" + s.array.name] = s.array.elem
        self.modified[s.var.name] = s.var.type
        self.assigns.setdefault(s.var.name, []).append(None)

    def visit_Assign(self, s: K.Assign) -> None:
        tgt = s.target
        if isinstance(tgt, K.Var):
            self.modified[tgt.name] = tgt.type
            self.assigns.setdefault(tgt.name, []).append(s.value)
        elif isinstance(tgt, K.VarField):
            self.modified[tgt.var.name] = tgt.var.type
            self.assigns.setdefault(tgt.var.name, []).append(None)
        elif isinstance(tgt, K.MemElem) and tgt.mem.space == K.Space.LOCAL:
            self.modified["@" + tgt.mem.name] = tgt.mem.elem

    def visit_Inline(self, s: K.Inline) -> None:
        if s.result is not None:
            self.modified[s.result.name] = s.result.type
            self.assigns.setdefault(s.result.name, []).append(None)
        self.generic_visit(s)

    def visit_Barrier(self, s: K.Barrier) -> None:
        self.has_barrier = True
