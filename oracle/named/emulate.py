"""Concrete emulation of one CTA into WEFT thread programs ([WEFT] Sec. 5.1).

WEFT turns a kernel into one straight-line *program* per thread -- a sequence of commands
``read g``, ``write g``, ``sync b n`` and ``arrive b n`` (Sec. 3.1) -- by emulating every
thread of one CTA with the thread ids, CTA id and launch configuration known, and nothing
known about the kernel's inputs.  This module does the same on KPL.

Why vectorised: a warp-specialised kernel has hundreds of threads that run the same code
modulo their thread id, and the checker must handle >= 1,000,000 commands in pure Python.
So statements are evaluated once per *set of active threads* (predicated execution, like
[AutoSync] Fig. 9, but with each thread's data kept concrete): a value is either a
scalar (the same in every active thread) or a list aligned with the active-thread list, and
one executed statement becomes one *event* holding the threads, their addresses and their
segment numbers.  A thread's program is the subsequence of events that contain it, in
emulation order -- which is program order for that thread, because threads only diverge on
their own data.

Runtime data (values read from memory, parameters not fixed by ``__requires`` equalities,
opaque calls) is the :class:`RT` value; any arithmetic on it yields it again, and any attempt
to *branch* on it raises :class:`RuntimeDependence`.  Sec. 5.1: "If WEFT encounters a
conditional statement, shared memory access, or barrier statement which cannot be emulated
because the inputs depend on dynamic parameters ... WEFT will raise an error" -- we report
``Unknown("cannot analyze: line L depends on runtime data")``, never a silent pass.

Stages: values and their operators are :mod:`oracle.named.values` (on :mod:`kpl.ctypes`),
expressions :mod:`oracle.named.evaluator`; this module is the statement visitor plus the two kinds
of event it emits (barrier commands, shared accesses).  It is one piece (over 400 lines)
because the events are positioned by the statement walk itself: a thread's segment number is
the count of commands it has executed so far, so emission and control flow share one state.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from kpl.ast import (
    ALL_FENCES,
    Annotation,
    Assign,
    Assume,
    Barrier,
    Binary,
    Block,
    Break,
    Builtin,
    Cast,
    Const,
    Continue,
    Decl,
    Expr,
    ExprStmt,
    If,
    Inline,
    Kernel,
    Loop,
    Memory,
    NamedBarrier,
    Return,
    Space,
    Stmt,
    Switch,
    Var,
    VarField,
    walk_expr,
    walk_stmts,
)
from kpl.placement import BarrierKind
from oracle.base import AccessKind, OracleError
from oracle.named.evaluator import ExprEmulator, line_of
from oracle.named.values import (
    RT,
    EmulationAbort,
    RuntimeDependence,
    Uniform,
    Value,
    convert_vec,
)

__all__ = ["NUM_BARRIERS", "AccessEvent", "EmulationAbort", "Emulator", "OpEvent", "Programs",
           "RuntimeDependence", "block_tainted_vars"]

#: hardware named barriers per SM ([WEFT] Sec. 2.2: "16 physical named barriers")
NUM_BARRIERS = 16


@dataclass
class OpEvent:
    """One executed ``sync``/``arrive`` statement instance with uniform (barrier, count)."""

    label: int
    line: int | None
    kind: str  # 'sync' | 'arrive'
    barrier: int
    count: int
    tids: list[int]
    spelling: str = ""


@dataclass
class AccessEvent:
    """One executed shared-memory access (read/write/atomic) of one statement instance.

    ``addrs`` is a scalar when every thread touches the same element; ``segs[i]`` is the
    number of sync/arrive commands thread ``tids[i]`` executed before this access -- its
    *segment*, which is all the race test needs of its position (Sec. 5.2).
    """

    label: int
    kind: AccessKind
    mem: Memory
    tids: list[int]
    addrs: int | list[int]
    segs: list[int]


@dataclass
class Programs:
    """The thread programs of one emulated CTA, stored as events (compact: Sec. 5.2)."""

    threads: int
    block: tuple[int, int, int]
    ops: list[OpEvent] = field(default_factory=list)
    thread_ops: list[list[int]] = field(default_factory=list)
    accesses: list[AccessEvent] = field(default_factory=list)
    #: (reason, label, line) of shared accesses whose address is runtime data
    unknown_accesses: list[tuple[str, int, int | None]] = field(default_factory=list)
    #: first line where control flow, a barrier or a shared address depends on blockIdx
    block_dependent_line: int | None = None
    commands: int = 0


# ----------------------------------------------------------------------------- emulator


@dataclass
class _Ctx:
    kind: str  # 'loop' | 'switch' | 'inline'
    brk: list[int] = field(default_factory=list)
    cont: list[int] = field(default_factory=list)
    ret: list[int] = field(default_factory=list)
    result: Var | None = None


def block_tainted_vars(kernel: Kernel) -> set[str]:
    """Variables whose value may depend on ``blockIdx`` (flow-insensitive fixpoint).

    WEFT emulates one CTA under a symmetry assumption (Sec. 3); where control flow or a
    shared address depends on the CTA id, that assumption is not free, and the oracle
    emulates the other CTAs too (or says it cannot)."""
    assigns: list[tuple[str, Expr]] = []
    for stmt in walk_stmts(kernel.body):
        if isinstance(stmt, Decl) and stmt.init is not None:
            assigns.append((stmt.var.name, stmt.init))
        elif isinstance(stmt, Assign) and isinstance(stmt.target, (Var, VarField)):
            name = stmt.target.name if isinstance(stmt.target, Var) else stmt.target.var.name
            assigns.append((name, stmt.value))
    tainted: set[str] = set()
    changed = True
    while changed:
        changed = False
        for name, expr in assigns:
            if name in tainted:
                continue
            for sub in walk_expr(expr):
                if (isinstance(sub, Builtin) and sub.name == "blockIdx") or (
                        isinstance(sub, Var) and sub.name in tainted):
                    tainted.add(name)
                    changed = True
                    break
    return tainted


def requires_equalities(kernel: Kernel) -> dict[str, int | float]:
    """The scalar parameters that ``__requires(n == 128)`` (possibly inside ``&&``) fixes, by
    name: the concrete value the emulator runs them with (and a GPU harness launches with)."""
    out: dict[str, int | float] = {}

    def visit(e: Expr) -> None:
        if isinstance(e, Binary) and e.op == "&&":
            visit(e.left)
            visit(e.right)
        elif isinstance(e, Binary) and e.op == "==":
            left, right = e.left, e.right
            while isinstance(left, Cast):
                left = left.operand
            while isinstance(right, Cast):
                right = right.operand
            if isinstance(right, Var) and isinstance(left, Const):
                left, right = right, left
            if isinstance(left, Var) and isinstance(right, Const) and not isinstance(
                    right.value, bool):
                out[left.name] = right.value

    for req in kernel.requires:
        visit(req)
    return out


class Emulator(ExprEmulator):
    """Emulates all threads of CTA ``block`` of ``kernel`` (WEFT Sec. 5.1)."""

    def __init__(self, kernel: Kernel, block: tuple[int, int, int] = (0, 0, 0),
                 params: dict[str, int | float] | None = None,
                 max_commands: int = 4_000_000, max_iterations: int = 5_000_000,
                 deadline: float | None = None) -> None:
        self.kernel = kernel
        launch = kernel.launch
        bx, by, bz = launch.concrete_block()  # the checker refuses a symbolic launch
        self.n = bx * by * bz
        self.block = block
        self.tx = [t % bx for t in range(self.n)]
        self.ty = [(t // bx) % by for t in range(self.n)]
        self.tz = [t // (bx * by) for t in range(self.n)]
        self.max_commands = max_commands
        self.max_iterations = max_iterations
        self.deadline = deadline
        self.iterations = 0
        self.prog = Programs(self.n, block, thread_ops=[[] for _ in range(self.n)])
        self.env: dict[str, Any] = {}
        self.ctx: list[_Ctx] = []
        self.cur: Stmt | None = None
        self._seg_cache: tuple[object, int, list[int]] = (None, -1, [])
        self._epoch = 0
        self._unknown_labels: set[int] = set()
        self._tainted = block_tainted_vars(kernel)
        self._block_dep_cache: dict[int, bool] = {}
        fixed = dict(params or {})
        fixed.update(requires_equalities(kernel))
        for p in kernel.params:
            if p.var is not None:
                self.env[p.var.name] = fixed.get(p.name, RT(
                    f"parameter '{p.name}' is not fixed by a __requires equality"))

    # ------------------------------------------------------------------ entry

    def run(self) -> Programs:
        everyone = list(range(self.n))
        self.exec_block(self.kernel.body, everyone)
        return self.prog

    def _abort(self, why: str) -> EmulationAbort:
        stmt = self.cur
        line = line_of(stmt)
        where = f"line {line}" if line is not None else f"statement #{stmt.label if stmt else '?'}"
        return EmulationAbort(f"cannot analyze: {where} depends on runtime data ({why})",
                              stmt.label if stmt is not None else None, line)

    def _note_block_dependence(self, expr: Expr | None) -> None:
        if expr is None or self.prog.block_dependent_line is not None:
            return
        key = id(expr)
        dep = self._block_dep_cache.get(key)
        if dep is None:
            dep = any((isinstance(s, Builtin) and s.name == "blockIdx") or (
                isinstance(s, Var) and s.name in self._tainted) for s in walk_expr(expr))
            self._block_dep_cache[key] = dep
        if dep:
            self.prog.block_dependent_line = line_of(self.cur) or 0

    # ------------------------------------------------------------------ statements

    def exec_block(self, block: Block, active: list[int]) -> list[int]:
        for stmt in block.stmts:
            if not active:
                break
            active = self.exec_stmt(stmt, active)
        return active

    def exec_stmt(self, stmt: Stmt, active: list[int]) -> list[int]:
        """Run ``stmt`` for the active threads; returns the threads active after it."""
        self.cur = stmt
        try:
            return self.visit(stmt, active)  # type: ignore[no-any-return]
        except RuntimeDependence as exc:
            self.cur = stmt
            raise self._abort(str(exc)) from None

    def generic_visit(self, node: object, *args: Any) -> Any:
        if isinstance(node, Stmt):  # pragma: no cover - exhaustive over kpl.ast
            raise EmulationAbort(f"cannot analyze: unsupported statement {type(node).__name__}",
                                 node.label, line_of(node))
        return super().generic_visit(node, *args)

    def visit_Decl(self, stmt: Decl, active: list[int]) -> list[int]:
        if stmt.array is None:
            value = self.eval(stmt.init, active) if stmt.init is not None else RT(
                f"'{stmt.var.name}' is uninitialised")
            self.set_var(stmt.var.name, value, active)
        return active

    def visit_ExprStmt(self, stmt: ExprStmt, active: list[int]) -> list[int]:
        self.eval(stmt.expr, active)
        return active

    def visit_Barrier(self, stmt: Barrier, active: list[int]) -> list[int]:
        if stmt.kind is BarrierKind.GRID:
            raise EmulationAbort("cannot analyze: a grid-wide barrier (grid_group::sync) is "
                                 "not modelled by the named-barrier checker; use --oracle sdv",
                                 stmt.label, line_of(stmt))
        if stmt.kind.warp:
            # not barrier 0 of the CTA: a warp barrier is outside the named-barrier model
            raise EmulationAbort("cannot analyze: __syncwarp() (a warp barrier) is not "
                                 "modelled by the named-barrier checker; use --oracle sdv",
                                 stmt.label, line_of(stmt))
        if stmt.fences != ALL_FENCES:
            raise EmulationAbort("cannot analyze: a barrier that orders only some memory "
                                 "(an OpenCL fence) is not modelled by the named-barrier "
                                 "checker; use --oracle sdv", stmt.label, line_of(stmt))
        self._op(stmt, "sync", 0, self.n, active, stmt.spelling)
        return active

    def visit_Break(self, stmt: Break, active: list[int]) -> list[int]:
        for ctx in reversed(self.ctx):
            if ctx.kind in ("loop", "switch"):
                ctx.brk.extend(active)
                break
        return []

    def visit_Continue(self, stmt: Continue, active: list[int]) -> list[int]:
        for ctx in reversed(self.ctx):
            if ctx.kind == "loop":
                ctx.cont.extend(active)
                break
        return []

    def visit_Assume(self, stmt: Assume, active: list[int]) -> list[int]:
        return active

    def visit_Annotation(self, stmt: Annotation, active: list[int]) -> list[int]:
        return active

    def visit_Assign(self, stmt: Assign, active: list[int]) -> list[int]:
        target = stmt.target
        value = self.eval(stmt.value, active)
        if isinstance(target, Var):
            self.set_var(target.name, convert_vec(value, target.type), active)
        elif isinstance(target, VarField):
            # vector components rarely steer control flow: forget the whole vector
            self.set_var(target.var.name, RT(f"component of vector '{target.var.name}'"), active)
        else:
            self.no_byte_view(target)
            self._access(target.mem, target.index, AccessKind.WRITE, active)
        return active

    def visit_If(self, stmt: If, active: list[int]) -> list[int]:
        self._note_block_dependence(stmt.cond)
        cond = self.eval(stmt.cond, active)
        if isinstance(cond, list):
            then_a = [t for t, c in zip(active, cond, strict=True) if c]
            else_a = [t for t, c in zip(active, cond, strict=True) if not c]
        elif cond:
            then_a, else_a = active, []
        else:
            then_a, else_a = [], active
        out_then = self.exec_block(stmt.then, then_a) if then_a else []
        if stmt.els is not None and else_a:
            out_else = self.exec_block(stmt.els, else_a)
        else:
            out_else = else_a
        if not out_else:
            return out_then
        if not out_then:
            return out_else
        return sorted(out_then + out_else)

    def visit_Loop(self, stmt: Loop, active: list[int]) -> list[int]:
        ctx = _Ctx("loop")
        self.ctx.append(ctx)
        exited: list[int] = []
        first = True
        while active:
            self.iterations += 1
            if self.deadline is not None and time.perf_counter() > self.deadline:
                raise OracleError("named-barrier check timed out during emulation",
                                  line_of(stmt), timeout=True)
            if self.iterations > self.max_iterations:
                raise EmulationAbort(
                    f"cannot analyze: loop at line {line_of(stmt)} exceeds "
                    f"{self.max_iterations} emulated iterations", stmt.label, line_of(stmt))
            if stmt.test_first or not first:
                self.cur = stmt
                self._note_block_dependence(stmt.cond)
                try:
                    cond = self.eval(stmt.cond, active)
                except RuntimeDependence as exc:
                    raise self._abort(str(exc)) from None
                if isinstance(cond, list):
                    try:
                        go = [t for t, c in zip(active, cond, strict=True) if c]
                    except RuntimeDependence as exc:
                        raise self._abort(str(exc)) from None
                    if len(go) != len(active):
                        stay = set(go)
                        exited.extend(t for t in active if t not in stay)
                    active = go
                else:
                    try:
                        keep = bool(cond)
                    except RuntimeDependence as exc:
                        raise self._abort(str(exc)) from None
                    if not keep:
                        exited.extend(active)
                        active = []
                if not active:
                    break
            first = False
            out = self.exec_block(stmt.body, active)
            if ctx.cont:
                out = sorted(out + ctx.cont)
                ctx.cont = []
            for latch in stmt.latch:
                if not out:
                    break
                out = self.exec_stmt(latch, out)
            active = out
        self.ctx.pop()
        rest = exited + ctx.brk
        return sorted(rest)

    def visit_Switch(self, stmt: Switch, active: list[int]) -> list[int]:
        ctx = _Ctx("switch")
        self.ctx.append(ctx)
        out = self.exec_block(stmt.body, active)
        self.ctx.pop()
        return sorted(out + ctx.brk) if ctx.brk else out

    def visit_Inline(self, stmt: Inline, active: list[int]) -> list[int]:
        ctx = _Ctx("inline", result=stmt.result)
        self.ctx.append(ctx)
        out = self.exec_block(stmt.body, active)
        self.ctx.pop()
        return sorted(out + ctx.ret) if ctx.ret else out

    def visit_Return(self, stmt: Return, active: list[int]) -> list[int]:
        for ctx in reversed(self.ctx):
            if ctx.kind == "inline":
                if stmt.value is not None:
                    value = self.eval(stmt.value, active)
                    if ctx.result is not None:
                        self.set_var(ctx.result.name, value, active)
                ctx.ret.extend(active)
                return []
        return []  # leaves the kernel: the threads' programs end here

    # ------------------------------------------------------------------ commands

    def _segs(self, active: list[int]) -> list[int]:
        obj, epoch, segs = self._seg_cache
        if obj is active and epoch == self._epoch:
            return segs
        thread_ops = self.prog.thread_ops
        segs = [len(thread_ops[t]) for t in active]
        self._seg_cache = (active, self._epoch, segs)
        return segs

    def _count(self, k: int) -> None:
        self.prog.commands += k
        if self.prog.commands > self.max_commands:
            raise EmulationAbort(f"cannot analyze: more than {self.max_commands} commands",
                                 self.cur.label if self.cur else None, line_of(self.cur))

    def _access(self, mem: Memory, index: Expr, kind: AccessKind, active: list[int]) -> None:
        idx = self.eval(index, active)
        if mem.space != Space.SHARED:
            return  # WEFT checks shared memory only (Sec. 3: global memory is out of scope)
        self._note_block_dependence(index)
        stmt = self.cur
        label = stmt.label if stmt is not None else -1
        if isinstance(idx, list):
            bad = [i for i, a in enumerate(idx) if a.__class__ is not int]
            if bad:
                self._unknown_access(mem, idx[bad[0]], label)
                keep = [i for i in range(len(idx)) if idx[i].__class__ is int]
                active = [active[i] for i in keep]
                idx = [idx[i] for i in keep]
                if not active:
                    return
                segs = [len(self.prog.thread_ops[t]) for t in active]
            else:
                segs = self._segs(active)
        else:
            if idx.__class__ is not int:
                if isinstance(idx, bool):
                    idx = int(idx)
                else:
                    self._unknown_access(mem, idx, label)
                    return
            segs = self._segs(active)
        self._count(len(active))
        self.prog.accesses.append(AccessEvent(label, kind, mem, active, idx, segs))

    def _unknown_access(self, mem: Memory, value: Any, label: int) -> None:
        if label in self._unknown_labels:
            return
        self._unknown_labels.add(label)
        why = value.why if value.__class__ is RT else f"non-integer index {value!r}"
        line = line_of(self.cur)
        where = f"line {line}" if line is not None else f"statement #{label}"
        self.prog.unknown_accesses.append(
            (f"cannot analyze: {where} depends on runtime data (address of shared "
             f"'{mem.name}': {why})", label, line))

    def visit_NamedBarrier(self, stmt: NamedBarrier, active: list[int]) -> list[int]:
        self._note_block_dependence(stmt.barrier)
        self._note_block_dependence(stmt.count)
        bar = self.eval(stmt.barrier, active)
        cnt = self.eval(stmt.count, active) if stmt.count is not None else self.n
        spelling = f"bar.{stmt.op}"
        if not isinstance(bar, list) and not isinstance(cnt, list):
            self._op(stmt, stmt.op, self._int(bar), self._int(cnt), active, spelling)
            return active
        bars = bar if isinstance(bar, list) else [bar] * len(active)
        cnts = cnt if isinstance(cnt, list) else [cnt] * len(active)
        groups: dict[tuple[int, int], list[int]] = {}
        for t, b, c in zip(active, bars, cnts, strict=True):
            groups.setdefault((self._int(b), self._int(c)), []).append(t)
        for (b, c), tids in groups.items():
            self._op(stmt, stmt.op, b, c, tids, spelling)
        return active

    def _int(self, v: Any) -> int:
        if v.__class__ is RT:
            raise RuntimeDependence(v.why)
        if isinstance(v, float):
            raise RuntimeDependence("non-integer barrier operand")
        return int(v)

    def _op(self, stmt: Stmt, kind: str, bar: int, cnt: int, tids: list[int],
            spelling: str) -> None:
        prog = self.prog
        eid = len(prog.ops)
        prog.ops.append(OpEvent(stmt.label, line_of(stmt), kind, bar, cnt, tids, spelling))
        thread_ops = prog.thread_ops
        for t in tids:
            thread_ops[t].append(eid)
        self._epoch += 1
        self._count(len(tids))

    # ------------------------------------------------------------------ variables

    def set_var(self, name: str, value: Value, active: list[int]) -> None:
        cur = self.env.get(name)
        if len(active) == self.n and not isinstance(value, list):
            self.env[name] = Uniform(value)
            return
        if not isinstance(cur, list):
            fill = cur.value if isinstance(cur, Uniform) else RT(f"'{name}' is unset")
            cur = [fill] * self.n
            self.env[name] = cur
        if isinstance(value, list):
            for t, v in zip(active, value, strict=True):
                cur[t] = v
        else:
            for t in active:
                cur[t] = value
