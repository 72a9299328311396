"""Concrete emulation of one CTA into WEFT thread programs (papers/000, Sec. 5.1).

WEFT turns a kernel into one straight-line *program* per thread -- a sequence of commands
``read g``, ``write g``, ``sync b n`` and ``arrive b n`` (Sec. 3.1) -- by emulating every
thread of one CTA with the thread ids, CTA id and launch configuration known, and nothing
known about the kernel's inputs.  This module does the same on KPL.

Why vectorised: a warp-specialised kernel has hundreds of threads that run the same code
modulo their thread id, and the checker must handle >= 1,000,000 commands in pure Python.
So statements are evaluated once per *set of active threads* (predicated execution, like
Fig. 9 of the AutoSync paper, but with each thread's data kept concrete): a value is either a
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
"""

from __future__ import annotations

import operator
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from kpl.ast import (
    Annotation,
    Assign,
    Assume,
    Atomic,
    Barrier,
    Binary,
    Block,
    Break,
    Builtin,
    Call,
    Cast,
    Cond,
    Const,
    Continue,
    CType,
    Decl,
    Expr,
    ExprStmt,
    Field,
    If,
    Inline,
    Kernel,
    Load,
    Loop,
    Memory,
    NamedBarrier,
    Return,
    Space,
    Stmt,
    Switch,
    Unary,
    Var,
    VarField,
    VecInit,
    walk_expr,
    walk_stmts,
)
from oracle.base import OracleError

#: hardware named barriers per SM (papers/000, Sec. 2.2: "16 physical named barriers")
NUM_BARRIERS = 16

Value = Any  # int | float | bool | tuple | RT, or a list of those (one per active thread)


class RT:
    """A runtime value the emulator cannot know (WEFT "dynamic parameters to the CTA").

    Arithmetic and comparisons on it give it back, so data that never steers control flow or
    an address costs nothing; ``bool()`` on it raises :class:`RuntimeDependence`.
    """

    __slots__ = ("why",)

    def __init__(self, why: str) -> None:
        self.why = why

    def _same(self, *_: object) -> RT:
        return self

    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _same
    __truediv__ = __rtruediv__ = __floordiv__ = __rfloordiv__ = __mod__ = __rmod__ = _same
    __lshift__ = __rlshift__ = __rshift__ = __rrshift__ = _same
    __and__ = __rand__ = __or__ = __ror__ = __xor__ = __rxor__ = _same
    __lt__ = __le__ = __gt__ = __ge__ = _same
    __neg__ = __invert__ = __pos__ = __abs__ = _same
    __hash__ = object.__hash__

    def __eq__(self, other: object) -> RT:  # type: ignore[override]
        return self

    def __ne__(self, other: object) -> RT:  # type: ignore[override]
        return self

    def __bool__(self) -> bool:
        raise RuntimeDependence(self.why)

    def __repr__(self) -> str:
        return f"RT({self.why})"


class RuntimeDependence(Exception):
    """Control flow (or a barrier operand) depends on data the emulator cannot know."""


class EmulationAbort(Exception):
    """The kernel cannot be turned into thread programs; carries the Unknown's fields."""

    def __init__(self, reason: str, label: int | None, line: int | None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.label = label
        self.line = line


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
    kind: str  # 'read' | 'write' | 'atomic'
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


# ----------------------------------------------------------------------------- scalar ops


def _cdiv(a: Any, b: Any) -> Any:
    """C division: truncation toward zero for integers."""
    if a.__class__ is RT:
        return a
    if b.__class__ is RT:
        return b
    if isinstance(a, float) or isinstance(b, float):
        return a / b if b else RT("division by zero")
    if b == 0:
        return RT("integer division by zero")
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def _cmod(a: Any, b: Any) -> Any:
    q = _cdiv(a, b)
    if q.__class__ is RT:
        return q
    return a - b * q


def _land(a: Any, b: Any) -> Any:
    if a.__class__ is RT:
        return a
    if not a:
        return 0
    if b.__class__ is RT:
        return b
    return 1 if b else 0


def _lor(a: Any, b: Any) -> Any:
    if a.__class__ is RT:
        return a
    if a:
        return 1
    if b.__class__ is RT:
        return b
    return 1 if b else 0


def _truth(a: Any) -> Any:
    if a.__class__ is RT:
        return a
    return 1 if a else 0


def _lnot(a: Any) -> Any:
    if a.__class__ is RT:
        return a
    return 0 if a else 1


_BINOPS: dict[str, Callable[[Any, Any], Any]] = {
    "+": operator.add, "-": operator.sub, "*": operator.mul,
    "/": _cdiv, "%": _cmod,
    "<<": operator.lshift, ">>": operator.rshift,
    "&": operator.and_, "|": operator.or_, "^": operator.xor,
    "<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge,
    "==": operator.eq, "!=": operator.ne,
}

_PURE_CALLS: dict[str, Callable[..., Any]] = {
    "min": min, "max": max, "umin": min, "umax": max, "llmin": min, "llmax": max,
    "abs": abs, "__mul24": operator.mul, "__umul24": operator.mul,
}


def _wrap(v: Any, ty: CType) -> Any:
    """Integer conversion to ``ty`` (unsigned wrap-around, signed narrowing)."""
    if v.__class__ is RT or ty.kind != "int":
        return v
    if isinstance(v, float):
        v = int(v)
    mask = (1 << ty.bits) - 1
    if ty.signed:
        if -(1 << (ty.bits - 1)) <= v < (1 << (ty.bits - 1)):
            return v
        v &= mask
        return v - (1 << ty.bits) if v >> (ty.bits - 1) else v
    return v if 0 <= v <= mask else v & mask


def _convert(v: Any, ty: CType) -> Any:
    if v.__class__ is RT:
        return v
    if ty.kind == "int":
        return _wrap(int(v) if isinstance(v, (float, bool)) else v, ty)
    if ty.kind == "float":
        return float(v) if isinstance(v, (int, float)) else RT("non-numeric cast")
    if ty.kind == "bool":
        return 1 if v else 0
    return v


def _line(stmt: Stmt | None) -> int | None:
    return stmt.span.line if stmt is not None and stmt.span is not None else None


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


class Emulator:
    """Emulates all threads of CTA ``block`` of ``kernel`` (WEFT Sec. 5.1)."""

    def __init__(self, kernel: Kernel, block: tuple[int, int, int] = (0, 0, 0),
                 params: dict[str, int | float] | None = None,
                 max_commands: int = 50_000_000, max_iterations: int = 5_000_000,
                 deadline: float | None = None) -> None:
        self.kernel = kernel
        launch = kernel.launch
        bx, by, bz = launch.block_dim
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
        fixed.update(self._requires_equalities())
        for p in kernel.params:
            if p.var is not None:
                self.env[p.var.name] = fixed.get(p.name, RT(
                    f"parameter '{p.name}' is not fixed by a __requires equality"))

    # ------------------------------------------------------------------ setup

    def _requires_equalities(self) -> dict[str, int | float]:
        """``__requires(n == 128)`` (possibly inside ``&&``) fixes a scalar parameter."""
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

        for req in self.kernel.requires:
            visit(req)
        return out

    # ------------------------------------------------------------------ entry

    def run(self) -> Programs:
        everyone = list(range(self.n))
        self.exec_block(self.kernel.body, everyone)
        return self.prog

    def _abort(self, why: str) -> EmulationAbort:
        stmt = self.cur
        line = _line(stmt)
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
            self.prog.block_dependent_line = _line(self.cur) or 0

    # ------------------------------------------------------------------ statements

    def exec_block(self, block: Block, active: list[int]) -> list[int]:
        for stmt in block.stmts:
            if not active:
                break
            active = self.exec_stmt(stmt, active)
        return active

    def exec_stmt(self, stmt: Stmt, active: list[int]) -> list[int]:
        self.cur = stmt
        try:
            if isinstance(stmt, Assign):
                self._assign(stmt, active)
            elif isinstance(stmt, Decl):
                if stmt.array is None:
                    value = self.eval(stmt.init, active) if stmt.init is not None else RT(
                        f"'{stmt.var.name}' is uninitialised")
                    self.set_var(stmt.var.name, value, active)
            elif isinstance(stmt, ExprStmt):
                self.eval(stmt.expr, active)
            elif isinstance(stmt, If):
                return self._if(stmt, active)
            elif isinstance(stmt, Loop):
                return self._loop(stmt, active)
            elif isinstance(stmt, Barrier):
                self._op(stmt, "sync", 0, self.n, active, stmt.spelling)
            elif isinstance(stmt, NamedBarrier):
                self._named(stmt, active)
            elif isinstance(stmt, Break):
                for ctx in reversed(self.ctx):
                    if ctx.kind in ("loop", "switch"):
                        ctx.brk.extend(active)
                        break
                return []
            elif isinstance(stmt, Continue):
                for ctx in reversed(self.ctx):
                    if ctx.kind == "loop":
                        ctx.cont.extend(active)
                        break
                return []
            elif isinstance(stmt, Return):
                return self._return(stmt, active)
            elif isinstance(stmt, Switch):
                return self._switch(stmt, active)
            elif isinstance(stmt, Inline):
                return self._inline(stmt, active)
            elif isinstance(stmt, (Assume, Annotation)):
                pass
            else:  # pragma: no cover - exhaustive over kpl.ast
                raise EmulationAbort(f"cannot analyze: unsupported statement {type(stmt).__name__}",
                                     stmt.label, _line(stmt))
        except RuntimeDependence as exc:
            self.cur = stmt
            raise self._abort(str(exc)) from None
        return active

    def _assign(self, stmt: Assign, active: list[int]) -> None:
        target = stmt.target
        value = self.eval(stmt.value, active)
        if isinstance(target, Var):
            self.set_var(target.name, _convert_vec(value, target.type), active)
        elif isinstance(target, VarField):
            # vector components rarely steer control flow: forget the whole vector
            self.set_var(target.var.name, RT(f"component of vector '{target.var.name}'"), active)
        else:
            self._access(target.mem, target.index, "write", active)

    def _if(self, stmt: If, active: list[int]) -> list[int]:
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

    def _loop(self, stmt: Loop, active: list[int]) -> list[int]:
        ctx = _Ctx("loop")
        self.ctx.append(ctx)
        exited: list[int] = []
        first = True
        while active:
            self.iterations += 1
            if self.deadline is not None and time.perf_counter() > self.deadline:
                raise OracleError("named-barrier check timed out during emulation",
                                  _line(stmt), timeout=True)
            if self.iterations > self.max_iterations:
                raise EmulationAbort(
                    f"cannot analyze: loop at line {_line(stmt)} exceeds "
                    f"{self.max_iterations} emulated iterations", stmt.label, _line(stmt))
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

    def _switch(self, stmt: Switch, active: list[int]) -> list[int]:
        ctx = _Ctx("switch")
        self.ctx.append(ctx)
        out = self.exec_block(stmt.body, active)
        self.ctx.pop()
        return sorted(out + ctx.brk) if ctx.brk else out

    def _inline(self, stmt: Inline, active: list[int]) -> list[int]:
        ctx = _Ctx("inline", result=stmt.result)
        self.ctx.append(ctx)
        out = self.exec_block(stmt.body, active)
        self.ctx.pop()
        return sorted(out + ctx.ret) if ctx.ret else out

    def _return(self, stmt: Return, active: list[int]) -> list[int]:
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
                                 self.cur.label if self.cur else None, _line(self.cur))

    def _access(self, mem: Memory, index: Expr, kind: str, active: list[int]) -> None:
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
        line = _line(self.cur)
        where = f"line {line}" if line is not None else f"statement #{label}"
        self.prog.unknown_accesses.append(
            (f"cannot analyze: {where} depends on runtime data (address of shared "
             f"'{mem.name}': {why})", label, line))

    def _named(self, stmt: NamedBarrier, active: list[int]) -> None:
        self._note_block_dependence(stmt.barrier)
        self._note_block_dependence(stmt.count)
        bar = self.eval(stmt.barrier, active)
        cnt = self.eval(stmt.count, active) if stmt.count is not None else self.n
        spelling = f"bar.{stmt.op}"
        if not isinstance(bar, list) and not isinstance(cnt, list):
            self._op(stmt, stmt.op, self._int(bar), self._int(cnt), active, spelling)
            return
        bars = bar if isinstance(bar, list) else [bar] * len(active)
        cnts = cnt if isinstance(cnt, list) else [cnt] * len(active)
        groups: dict[tuple[int, int], list[int]] = {}
        for t, b, c in zip(active, bars, cnts, strict=True):
            groups.setdefault((self._int(b), self._int(c)), []).append(t)
        for (b, c), tids in groups.items():
            self._op(stmt, stmt.op, b, c, tids, spelling)

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
        prog.ops.append(OpEvent(stmt.label, _line(stmt), kind, bar, cnt, tids, spelling))
        thread_ops = prog.thread_ops
        for t in tids:
            thread_ops[t].append(eid)
        self._epoch += 1
        self._count(len(tids))

    # ------------------------------------------------------------------ variables

    def set_var(self, name: str, value: Value, active: list[int]) -> None:
        cur = self.env.get(name)
        if len(active) == self.n and not isinstance(value, list):
            self.env[name] = _Uniform(value)
            return
        if not isinstance(cur, list):
            fill = cur.value if isinstance(cur, _Uniform) else RT(f"'{name}' is unset")
            cur = [fill] * self.n
            self.env[name] = cur
        if isinstance(value, list):
            for t, v in zip(active, value, strict=True):
                cur[t] = v
        else:
            for t in active:
                cur[t] = value

    def get_var(self, var: Var, active: list[int]) -> Value:
        cur = self.env.get(var.name)
        if isinstance(cur, _Uniform):
            return cur.value
        if cur is None:
            if var.name == "warpSize":
                return 32
            return RT(f"'{var.name}' is not known")
        if isinstance(cur, list):
            return [cur[t] for t in active]
        return cur  # a parameter (scalar or RT)

    # ------------------------------------------------------------------ expressions

    def eval(self, e: Expr, active: list[int]) -> Value:
        cls = e.__class__
        if cls is Const:
            return e.value  # type: ignore[union-attr]
        if cls is Var:
            return self.get_var(e, active)  # type: ignore[arg-type]
        if cls is Binary:
            return self._binary(e, active)  # type: ignore[arg-type]
        if cls is Builtin:
            return self._builtin(e, active)  # type: ignore[arg-type]
        if cls is Load:
            assert isinstance(e, Load)
            self._access(e.mem, e.index, "read", active)
            return RT(f"value read from '{e.mem.name}'")
        if cls is Cast:
            assert isinstance(e, Cast)
            v = self.eval(e.operand, active)
            ty = e.type
            if isinstance(v, list):
                return [_convert(x, ty) for x in v]
            return _convert(v, ty)
        if cls is Unary:
            return self._unary(e, active)  # type: ignore[arg-type]
        if cls is Cond:
            return self._cond(e, active)  # type: ignore[arg-type]
        if cls is Atomic:
            assert isinstance(e, Atomic)
            for arg in e.args:
                self.eval(arg, active)
            self._access(e.mem, e.index, "atomic", active)
            return RT(f"result of {e.op}")
        if cls is Call:
            assert isinstance(e, Call)
            args = [self.eval(a, active) for a in e.args]
            fn = _PURE_CALLS.get(e.name)
            if fn is None:
                return RT(f"result of {e.name}()")
            if any(isinstance(a, list) for a in args):
                cols = [a if isinstance(a, list) else [a] * len(active) for a in args]
                return [_call(fn, row) for row in zip(*cols, strict=True)]
            return _call(fn, args)
        if cls is Field:
            assert isinstance(e, Field)
            base = self.eval(e.base, active)
            pos = "xyzw".find(e.name)
            if isinstance(base, list):
                return [b[pos] if isinstance(b, tuple) and 0 <= pos < len(b) else
                        RT(f"component .{e.name}") for b in base]
            if isinstance(base, tuple) and 0 <= pos < len(base):
                return base[pos]
            return RT(f"component .{e.name}")
        if cls is VecInit:
            assert isinstance(e, VecInit)
            parts = [self.eval(p, active) for p in e.parts]
            if any(isinstance(p, list) for p in parts):
                cols = [p if isinstance(p, list) else [p] * len(active) for p in parts]
                return [tuple(row) for row in zip(*cols, strict=True)]
            return tuple(parts)
        raise EmulationAbort(f"cannot analyze: unsupported expression {cls.__name__}",
                             self.cur.label if self.cur else None, _line(self.cur))

    def _builtin(self, e: Builtin, active: list[int]) -> Value:
        k = "xyz".index(e.dim) if e.dim in "xyz" else 0
        if e.name == "threadIdx":
            arr = (self.tx, self.ty, self.tz)[k]
            if len(active) == self.n:
                return arr
            return [arr[t] for t in active]
        if e.name == "blockIdx":
            return self.block[k]
        if e.name == "blockDim":
            return self.kernel.launch.block_dim[k]
        if e.name == "gridDim":
            return self.kernel.launch.grid_dim[k]
        return RT(f"builtin {e.name}")

    def _binary(self, e: Binary, active: list[int]) -> Value:
        op = e.op
        if op in ("&&", "||"):
            return self._logical(e, active)
        left = self.eval(e.left, active)
        right = self.eval(e.right, active)
        ty = e.type
        if ty.kind == "float" and op == "/":
            fn: Callable[[Any, Any], Any] = _fdiv
        else:
            fn = _BINOPS[op]
        wrap = ty.kind == "int" and not ty.signed
        if isinstance(left, list):
            if isinstance(right, list):
                out = list(map(fn, left, right))
            else:
                out = [fn(a, right) for a in left]
        elif isinstance(right, list):
            out = [fn(left, b) for b in right]
        else:
            v = fn(left, right)
            return _wrap(v, ty) if wrap else v
        if wrap:
            return [_wrap(v, ty) for v in out]
        return out

    def _logical(self, e: Binary, active: list[int]) -> Value:
        """Short-circuit: the right operand's reads happen only where the left one does not
        decide (papers/002); where the left one is runtime data, conservatively evaluate."""
        is_and = e.op == "&&"
        left = self.eval(e.left, active)
        fn = _land if is_and else _lor
        if not isinstance(left, list):
            if left.__class__ is not RT and bool(left) != is_and:
                return 0 if is_and else 1
            right = self.eval(e.right, active)
            if isinstance(right, list):
                return [fn(left, b) for b in right]
            return fn(left, right)
        need = [i for i, a in enumerate(left) if a.__class__ is RT or bool(a) == is_and]
        out = [(0 if is_and else 1)] * len(left)
        if need:
            sub = [active[i] for i in need]
            right = self.eval(e.right, sub)
            if isinstance(right, list):
                for i, b in zip(need, right, strict=True):
                    out[i] = fn(left[i], b)
            else:
                for i in need:
                    out[i] = fn(left[i], right)
        return out

    def _unary(self, e: Unary, active: list[int]) -> Value:
        v = self.eval(e.operand, active)
        op = e.op
        fn: Callable[[Any], Any]
        if op == "-":
            fn = operator.neg
        elif op == "!":
            fn = _lnot
        elif op == "~":
            fn = operator.invert
        elif op == "+":
            fn = operator.pos
        else:
            return RT(f"operator {op}")
        ty = e.type
        wrap = ty.kind == "int" and not ty.signed
        if isinstance(v, list):
            out = [fn(x) for x in v]
            return [_wrap(x, ty) for x in out] if wrap else out
        r = fn(v)
        return _wrap(r, ty) if wrap else r

    def _cond(self, e: Cond, active: list[int]) -> Value:
        c = self.eval(e.cond, active)
        if not isinstance(c, list):
            if c.__class__ is RT:
                self.eval(e.then, active)
                self.eval(e.els, active)
                return c
            return self.eval(e.then if c else e.els, active)
        t_idx = [i for i, x in enumerate(c) if x.__class__ is RT or x]
        f_idx = [i for i, x in enumerate(c) if x.__class__ is RT or not x]
        out: list[Any] = [None] * len(c)
        for idx, branch in ((t_idx, e.then), (f_idx, e.els)):
            if not idx:
                continue
            vals = self.eval(branch, [active[i] for i in idx])
            for j, i in enumerate(idx):
                out[i] = vals[j] if isinstance(vals, list) else vals
        for i, x in enumerate(c):
            if x.__class__ is RT:
                out[i] = x
        return out


class _Uniform:
    """A variable with the same value in every thread of the CTA."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value


def _fdiv(a: Any, b: Any) -> Any:
    if a.__class__ is RT:
        return a
    if b.__class__ is RT:
        return b
    return a / b if b else RT("division by zero")


def _call(fn: Callable[..., Any], args: Any) -> Any:
    for a in args:
        if a.__class__ is RT:
            return a
    try:
        return fn(*args)
    except (TypeError, ValueError):
        return RT("call")


def _convert_vec(value: Value, ty: CType) -> Value:
    """Assignment converts to the variable's type (``int x = 3.7`` stores 3)."""
    if ty.kind not in ("int", "bool"):
        return value
    if isinstance(value, list):
        if ty.kind == "int" and ty.signed and ty.bits == 32 and all(
                v.__class__ is int and -2147483648 <= v <= 2147483647 for v in value):
            return value
        return [_convert(v, ty) for v in value]
    return _convert(value, ty)
