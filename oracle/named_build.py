"""A tiny KPL builder for hand-made warp-specialised kernels.

Used by the named-barrier tests (before, and independently of, the CUDA front end) and by
``microbench/named_scale.py``, which generates kernels with millions of commands without
going through text.  Statements get a source line each (``line=`` or the running counter);
:func:`kernel` assigns unique labels the way the front end does (a compound statement's
block shares its label, every block gets a fresh start label, an ``else`` block its own).
"""

from __future__ import annotations

from collections.abc import Sequence

from kpl.ast import (
    FLOAT,
    INT,
    UINT,
    Assign,
    Barrier,
    Binary,
    Block,
    Builtin,
    Const,
    CType,
    Decl,
    Expr,
    If,
    Kernel,
    Launch,
    Load,
    Loop,
    MemElem,
    Memory,
    NamedBarrier,
    Param,
    Space,
    Span,
    Stmt,
    Var,
    assign_labels,
)

TID = Builtin("threadIdx", "x")


def c(v: int) -> Const:
    return Const(v)


def v(name: str, ty: CType = INT) -> Var:
    return Var(name, ty)


def b(op: str, left: Expr | int, right: Expr | int, ty: CType = INT) -> Binary:
    lhs = Const(left) if isinstance(left, int) else left
    rhs = Const(right) if isinstance(right, int) else right
    if op in ("<", "<=", ">", ">=", "==", "!=", "&&", "||"):
        ty = INT
    return Binary(op, lhs, rhs, ty)


def warp_id(shift: bool = False) -> Binary:
    """``threadIdx.x / 32`` (or ``threadIdx.x >> 5``)."""
    return Binary(">>" if shift else "/", TID, Const(5 if shift else 32), UINT)


def lane_id() -> Binary:
    return Binary("%", TID, Const(32), UINT)


def shared(name: str, size: int, ty: CType = FLOAT) -> Memory:
    return Memory(name, Space.SHARED, ty, (size,))


class Builder:
    """Creates statements with consecutive source lines (``line`` overrides)."""

    def __init__(self, path: str = "<built>.cu", first_line: int = 1) -> None:
        self.path = path
        self.line = first_line

    def _span(self, line: int | None) -> Span:
        if line is None:
            line = self.line
            self.line += 1
        return Span(self.path, line, 1, line, 2)

    def write(self, mem: Memory, index: Expr | int, value: Expr | int = 1,
              line: int | None = None) -> Assign:
        idx = Const(index) if isinstance(index, int) else index
        val = Const(value) if isinstance(value, int) else value
        return Assign(MemElem(mem, idx), val, span=self._span(line))

    def read(self, var: str, mem: Memory, index: Expr | int, line: int | None = None) -> Assign:
        idx = Const(index) if isinstance(index, int) else index
        return Assign(Var(var, mem.elem), Load(mem, idx, mem.elem), span=self._span(line))

    def let(self, var: str, value: Expr | int, ty: CType = INT, line: int | None = None) -> Decl:
        val = Const(value) if isinstance(value, int) else value
        return Decl(Var(var, ty), val, span=self._span(line))

    def set(self, var: str, value: Expr | int, ty: CType = INT, line: int | None = None) -> Assign:
        val = Const(value) if isinstance(value, int) else value
        return Assign(Var(var, ty), val, span=self._span(line))

    def sync(self, bar: Expr | int, count: Expr | int | None = None,
             line: int | None = None) -> NamedBarrier:
        return self._named("sync", bar, count, line)

    def arrive(self, bar: Expr | int, count: Expr | int | None = None,
               line: int | None = None) -> NamedBarrier:
        return self._named("arrive", bar, count, line)

    def _named(self, op: str, bar: Expr | int, count: Expr | int | None,
               line: int | None) -> NamedBarrier:
        be = Const(bar) if isinstance(bar, int) else bar
        ce = Const(count) if isinstance(count, int) else count
        return NamedBarrier(op, be, ce, span=self._span(line))

    def syncthreads(self, line: int | None = None) -> Barrier:
        return Barrier(span=self._span(line))

    def if_(self, cond: Expr, then: Sequence[Stmt], els: Sequence[Stmt] | None = None,
            line: int | None = None) -> If:
        span = self._span(line)
        return If(cond, Block(list(then)), Block(list(els)) if els is not None else None,
                  span=span)

    def for_(self, var: str, lo: Expr | int, hi: Expr | int, body: Sequence[Stmt],
             line: int | None = None) -> list[Stmt]:
        """``for (int var = lo; var < hi; var++) body`` as ``Decl`` + ``Loop``."""
        span = self._span(line)
        lo_e = Const(lo) if isinstance(lo, int) else lo
        init = Decl(Var(var), lo_e, span=span)
        step = Assign(Var(var), b("+", Var(var), 1), span=span, placeable=False)
        loop = Loop(b("<", Var(var), hi), Block(list(body)), [step], span=span)
        return [init, loop]


def kernel(stmts: Sequence[Stmt], block_dim: int | tuple[int, int, int] = 64,
           grid_dim: int | tuple[int, int, int] = 1, warp_sync: int | None = None,
           name: str = "k", params: Sequence[Param] = (), requires: Sequence[Expr] = (),
           path: str = "<built>.cu") -> Kernel:
    """Wrap ``stmts`` into a labelled kernel."""
    bd = (block_dim, 1, 1) if isinstance(block_dim, int) else block_dim
    gd = (grid_dim, 1, 1) if isinstance(grid_dim, int) else grid_dim
    body = Block(list(stmts))
    k = Kernel(name, list(params), body, Launch(bd, gd, warp_sync), path, "",
               requires=list(requires), uses_named_barriers=True)
    assign_labels(k)
    return k


__all__ = ["FLOAT", "INT", "UINT", "TID", "Builder", "b", "c", "v", "kernel", "lane_id",
           "shared", "warp_id"]
