"""Expression evaluation of the named-barrier emulator: one visitor method per :mod:`kpl.ast`
expression class, vectorised over the active threads (a value is a scalar when it is the
same in every active thread, else a list aligned with them).  Shared-memory reads and atomics
are logged as accesses by the statement stage (:meth:`ExprEmulator._access`, defined by
:class:`oracle.named.emulate.Emulator`).
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

from kpl.ast import (
    Atomic,
    Binary,
    Builtin,
    Call,
    Cast,
    Cond,
    Const,
    Expr,
    Field,
    Kernel,
    Load,
    MemElem,
    Memory,
    NodeVisitor,
    Stmt,
    Unary,
    Var,
    VecInit,
)
from kpl.ctypes import SHIFTS, promote
from oracle.base import AccessKind
from oracle.named.values import (
    PURE_CALLS,
    RT,
    EmulationAbort,
    Uniform,
    Value,
    binop,
    call_pure,
    convert_value,
    land,
    lnot,
    lor,
    wrap,
)

__all__ = ["ExprEmulator", "line_of"]


def line_of(stmt: Stmt | None) -> int | None:
    """The source line of a statement, if it has one."""
    return stmt.span.line if stmt is not None and stmt.span is not None else None


class ExprEmulator(NodeVisitor):
    """The expression half of :class:`oracle.named.emulate.Emulator` (which owns the state
    declared here)."""

    kernel: Kernel
    n: int
    block: tuple[int, int, int]
    tx: list[int]
    ty: list[int]
    tz: list[int]
    env: dict[str, Any]
    cur: Stmt | None

    def _access(self, mem: Memory, index: Expr, kind: AccessKind, active: list[int]) -> None:
        raise NotImplementedError

    # ------------------------------------------------------------------ expressions

    def eval(self, e: Expr, active: list[int]) -> Value:
        """The value of ``e`` for the active threads: a scalar when uniform, else a list."""
        return self.visit(e, active)

    def generic_visit(self, node: object, *args: Any) -> Any:
        raise EmulationAbort(f"cannot analyze: unsupported expression {type(node).__name__}",
                             self.cur.label if self.cur else None, line_of(self.cur))

    def visit_Const(self, e: Const, active: list[int]) -> Value:
        return e.value

    def visit_Var(self, e: Var, active: list[int]) -> Value:
        return self.get_var(e, active)

    def no_byte_view(self, e: Load | Atomic | MemElem) -> None:
        """Accesses through pointer casts (byte offsets, ``view``) are not modelled here:
        cannot analyze, rather than compare a byte offset with element indices."""
        if e.view is not None:
            raise EmulationAbort(f"cannot analyze: access of '{e.mem.name}' through a pointer "
                                 "cast (byte view)", self.cur.label if self.cur else None,
                                 line_of(self.cur))

    def visit_Load(self, e: Load, active: list[int]) -> Value:
        self.no_byte_view(e)
        self._access(e.mem, e.index, AccessKind.READ, active)
        return RT(f"value read from '{e.mem.name}'")

    def visit_Cast(self, e: Cast, active: list[int]) -> Value:
        v = self.eval(e.operand, active)
        ty = e.type
        if isinstance(v, list):
            return [convert_value(x, ty) for x in v]
        return convert_value(v, ty)

    def visit_Atomic(self, e: Atomic, active: list[int]) -> Value:
        for arg in e.args:
            self.eval(arg, active)
        self.no_byte_view(e)
        self._access(e.mem, e.index, AccessKind.ATOMIC, active)
        return RT(f"result of {e.op}")

    def visit_Call(self, e: Call, active: list[int]) -> Value:
        args = [self.eval(a, active) for a in e.args]
        fn = PURE_CALLS.get(e.name)
        if fn is None:
            return RT(f"result of {e.name}()")
        if any(isinstance(a, list) for a in args):
            cols = [a if isinstance(a, list) else [a] * len(active) for a in args]
            return [call_pure(fn, row) for row in zip(*cols, strict=True)]
        return call_pure(fn, args)

    def visit_Field(self, e: Field, active: list[int]) -> Value:
        base = self.eval(e.base, active)
        pos = "xyzw".find(e.name)
        if isinstance(base, list):
            return [b[pos] if isinstance(b, tuple) and 0 <= pos < len(b) else
                    RT(f"component .{e.name}") for b in base]
        if isinstance(base, tuple) and 0 <= pos < len(base):
            return base[pos]
        return RT(f"component .{e.name}")

    def visit_VecInit(self, e: VecInit, active: list[int]) -> Value:
        parts = [self.eval(p, active) for p in e.parts]
        if any(isinstance(p, list) for p in parts):
            cols = [p if isinstance(p, list) else [p] * len(active) for p in parts]
            return [tuple(row) for row in zip(*cols, strict=True)]
        return tuple(parts)

    def visit_Builtin(self, e: Builtin, active: list[int]) -> Value:
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

    def visit_Binary(self, e: Binary, active: list[int]) -> Value:
        op = e.op
        if op in ("&&", "||"):
            return self._logical(e, active)
        left = self.eval(e.left, active)
        right = self.eval(e.right, active)
        ty = promote(e.left.type) if op in SHIFTS else e.type
        fn = binop(op, ty)
        unsigned = ty.kind == "int" and not ty.signed
        if isinstance(left, list):
            if isinstance(right, list):
                out = list(map(fn, left, right))
            else:
                out = [fn(a, right) for a in left]
        elif isinstance(right, list):
            out = [fn(left, b) for b in right]
        else:
            v = fn(left, right)
            return wrap(v, ty) if unsigned else v
        if unsigned:
            return [wrap(v, ty) for v in out]
        return out

    def _logical(self, e: Binary, active: list[int]) -> Value:
        """Short-circuit: the right operand's reads happen only where the left one does not
        decide ([LockStep]); where the left one is runtime data, conservatively evaluate."""
        is_and = e.op == "&&"
        left = self.eval(e.left, active)
        fn = land if is_and else lor
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

    def visit_Unary(self, e: Unary, active: list[int]) -> Value:
        v = self.eval(e.operand, active)
        op = e.op
        fn: Callable[[Any], Any]
        if op == "-":
            fn = operator.neg
        elif op == "!":
            fn = lnot
        elif op == "~":
            fn = operator.invert
        elif op == "+":
            fn = operator.pos
        else:
            return RT(f"operator {op}")
        ty = e.type
        unsigned = ty.kind == "int" and not ty.signed
        if isinstance(v, list):
            out = [fn(x) for x in v]
            return [wrap(x, ty) for x in out] if unsigned else out
        r = fn(v)
        return wrap(r, ty) if unsigned else r

    def visit_Cond(self, e: Cond, active: list[int]) -> Value:
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

    def get_var(self, var: Var, active: list[int]) -> Value:
        cur = self.env.get(var.name)
        if isinstance(cur, Uniform):
            return cur.value
        if cur is None:
            if var.name == "warpSize":
                return 32
            return RT(f"'{var.name}' is not known")
        if isinstance(cur, list):
            return [cur[t] for t in active]
        return cur  # a parameter (scalar or RT)
