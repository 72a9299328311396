"""The one builder for hand-made KPL kernels (tests, the differential generator, benchmarks).

Why build ASTs directly: the oracle and synthesis tests must not depend on the C front end,
the worked examples of [AutoSync] Sec. II-III are stated in paper line numbers, and a
generator over the AST (``kernelgen.py``) reaches corner cases far more often than generated
C text would.  Plain functions, importable as ``from conftest import ...`` (pytest puts
``tests/`` on ``sys.path``; ``microbench/named_scale.py`` inserts it by hand).

Three layers:

* expressions -- ``c``, ``v``, ``bop`` and its shorthands, ``load``, ``warp_id``/``lane_id``;
* statements -- ``decl``, ``assign``, ``store``, ``read``, ``barrier``, ``sync``/``arrive``,
  ``if_``, ``for_``, ``while_``, ...; each takes an optional source ``line`` (and ``end``
  for compound statements), so that ``LabelTree.name`` yields the paper's names (``3``,
  ``2:4``, ``2:4_s``);
* kernels -- :func:`kernel` labels a statement list the way the front end does
  (``kpl.labels.assign_labels``: a compound statement's block shares its label, every block a
  fresh start label, an ``else`` block its own) and gives a statement without a ``line``
  its label as line, so that every report names it; :class:`KernelBuilder` collects
  parameters, arrays and ``__requires`` first.

The paper's examples built from these (Fig. 6 and the ``leaf`` statements it is made of) and
:func:`by_name` (a label by its paper name) live here too, shared by test_labels,
test_transform and test_synthesis.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import pytest

from kpl.ast import (
    INT,
    UINT,
    Assign,
    Assume,
    Atomic,
    Barrier,
    Binary,
    Block,
    BlockSource,
    Break,
    Builtin,
    Const,
    Continue,
    CType,
    Decl,
    Expr,
    ExprStmt,
    If,
    Kernel,
    Launch,
    Load,
    Loop,
    MemElem,
    Memory,
    NamedBarrier,
    Param,
    Return,
    Space,
    Span,
    Stmt,
    Var,
    walk_stmts,
)
from kpl.labels import LabelTree, assign_labels

StmtLike = Stmt | Sequence["StmtLike"]

# --------------------------------------------------------------------------- expressions

TID = TID_X = Builtin("threadIdx", "x")
TID_Y = Builtin("threadIdx", "y")
BID_X = Builtin("blockIdx", "x")
BDIM_X = Builtin("blockDim", "x")

_CMP = ("==", "!=", "<", "<=", ">", ">=", "&&", "||")


def c(value: int | float | bool, t: CType = INT) -> Const:
    return Const(value, t)


def v(name: str, t: CType = INT) -> Var:
    return Var(name, t)


def _e(x: Expr | int) -> Expr:
    return Const(x, INT) if isinstance(x, int) else x


def _result_type(op: str, a: Expr, b: Expr) -> CType:
    """C's usual arithmetic conversions, reduced to the types the tests use."""
    if op in _CMP:
        return INT
    ta, tb = a.type, b.type  # type: ignore[union-attr]
    if ta.kind == "float" or tb.kind == "float":
        return ta if ta.kind == "float" else tb
    if op in ("<<", ">>"):
        return ta if ta.bits >= 32 else INT
    if not ta.signed and ta.bits >= 32:
        return ta
    if not tb.signed and tb.bits >= 32:
        return tb
    return INT


def bop(op: str, a: Expr | int, b: Expr | int, t: CType | None = None) -> Binary:
    """``a op b``, of type ``t`` or else C's result type (comparisons are always ``int``)."""
    ea, eb = _e(a), _e(b)
    if t is None or op in _CMP:
        t = _result_type(op, ea, eb)
    return Binary(op, ea, eb, t)


def add(a: Expr | int, b: Expr | int) -> Binary:
    return bop("+", a, b)


def sub(a: Expr | int, b: Expr | int) -> Binary:
    return bop("-", a, b)


def mul(a: Expr | int, b: Expr | int) -> Binary:
    return bop("*", a, b)


def mod(a: Expr | int, b: Expr | int) -> Binary:
    return bop("%", a, b)


def lt(a: Expr | int, b: Expr | int) -> Binary:
    return bop("<", a, b)


def ge(a: Expr | int, b: Expr | int) -> Binary:
    return bop(">=", a, b)


def eq(a: Expr | int, b: Expr | int) -> Binary:
    return bop("==", a, b)


def land(a: Expr, b: Expr) -> Binary:
    return bop("&&", a, b)


def load(mem: Memory, idx: Expr | int) -> Load:
    return Load(mem, _e(idx), mem.elem)


def warp_id(shift: bool = False) -> Binary:
    """``threadIdx.x / 32`` (or ``threadIdx.x >> 5``)."""
    return Binary(">>" if shift else "/", TID, Const(5 if shift else 32), UINT)


def lane_id() -> Binary:
    return Binary("%", TID, Const(32), UINT)


def shared(name: str, size: int | None, elem: CType = INT) -> Memory:
    return Memory(name, Space.SHARED, elem, (size,))


# --------------------------------------------------------------------------- statements


def _span(line: int | None, end: int | None = None) -> Span | None:
    """A statement's span (the file is filled in by :func:`kernel`)."""
    return None if line is None else Span("", line, 1, end or line, 2)


def decl(var: Var | str, init: Expr | int | None = None, *, line: int | None = None) -> Decl:
    var = Var(var) if isinstance(var, str) else var
    return Decl(var, _e(init) if init is not None else None, span=_span(line))


def assign(var: Var, value: Expr | int, *, line: int | None = None,
           placeable: bool = True) -> Assign:
    return Assign(var, _e(value), span=_span(line), placeable=placeable)


def store(mem: Memory, idx: Expr | int, value: Expr | int = 1, *, line: int | None = None,
          placeable: bool = True) -> Assign:
    """``mem[idx] = value``."""
    return Assign(MemElem(mem, _e(idx)), _e(value), span=_span(line), placeable=placeable)


def read(var: str, mem: Memory, idx: Expr | int, *, line: int | None = None) -> Assign:
    """``var = mem[idx]`` with ``var`` of the array's element type."""
    return Assign(Var(var, mem.elem), load(mem, idx), span=_span(line))


def atomic_add(mem: Memory, idx: Expr | int, value: Expr | int = 1) -> ExprStmt:
    return ExprStmt(Atomic("atomicAdd", mem, _e(idx), (_e(value),), mem.elem))


def barrier(*, line: int | None = None) -> Barrier:
    return Barrier(span=_span(line))


def sync(bar: Expr | int, count: Expr | int | None = None, *,
         line: int | None = None) -> NamedBarrier:
    """``bar.sync bar, count`` (a PTX named barrier)."""
    return NamedBarrier("sync", _e(bar), None if count is None else _e(count), span=_span(line))


def arrive(bar: Expr | int, count: Expr | int | None = None, *,
           line: int | None = None) -> NamedBarrier:
    """``bar.arrive bar, count``."""
    return NamedBarrier("arrive", _e(bar), None if count is None else _e(count),
                        span=_span(line))


def brk() -> Break:
    return Break()


def cont() -> Continue:
    return Continue()


def ret() -> Return:
    return Return()


def _flat(stmts: Iterable[Any]) -> list[Stmt]:
    out: list[Stmt] = []
    for s in stmts:
        if isinstance(s, Stmt):
            out.append(s)
        else:
            out.extend(_flat(s))
    return out


def block(*stmts: StmtLike) -> Block:
    return Block(_flat(stmts))


def if_(cond: Expr, then: Sequence[StmtLike], els: Sequence[StmtLike] | None = None, *,
        line: int | None = None, end: int | None = None, else_line: int | None = None) -> If:
    """``if (cond) { then } else { els }``; with ``line``/``end`` the ``if`` spans
    ``line:end`` (up to the line before ``else_line`` when there is an ``else``) and the
    ``else`` block ``else_line:end``, the paper's naming of Fig. 6."""
    els_block = Block(_flat(els)) if els is not None else None
    if els_block is not None and line is not None:
        els_block.span = _span(else_line or end, end)
    if_end = end if els is None or end is None else (else_line or end) - 1
    return If(cond, Block(_flat(then)), els_block, span=_span(line, if_end))


def for_(var: Var | str, lo: Expr | int, hi: Expr | int, body: Sequence[StmtLike],
         step: int = 1, *, line: int | None = None, end: int | None = None) -> list[Stmt]:
    """``for (var = lo; var < hi; var += step) body`` as ``Decl`` + ``Loop`` with the step in
    the latch (so ``continue`` re-enables threads before it, [AutoSync] Fig. 9); the latch
    is not placeable, as the front end's for-header."""
    var = Var(var) if isinstance(var, str) else var
    step_stmt = Assign(var, add(var, step), span=_span(line), placeable=False)
    return [Decl(var, _e(lo), span=_span(line)),
            Loop(lt(var, hi), Block(_flat(body)), latch=[step_stmt], span=_span(line, end))]


def while_(cond: Expr, body: Sequence[StmtLike], *, line: int | None = None,
           end: int | None = None) -> Loop:
    return Loop(cond, Block(_flat(body)), kind="while", span=_span(line, end))


# --------------------------------------------------------------------------- kernels


def _dim3(d: tuple[int, int, int] | int) -> tuple[int, int, int]:
    return (d, 1, 1) if isinstance(d, int) else d


def kernel(stmts: Sequence[StmtLike], block_dim: tuple[int, int, int] | int = 64,
           grid_dim: tuple[int, int, int] | int = 1, warp_sync: int | None = None, *,
           name: str = "k", params: Sequence[Param] = (), requires: Sequence[Expr] = (),
           memories: dict[str, Memory] | None = None, path: str | None = None,
           source_text: str = "", body_source: BlockSource | None = None) -> Kernel:
    """Wrap ``stmts`` into a labelled kernel (``requires`` also become ``Assume`` statements
    at the top of the body, as the front end writes them).  ``path``/``source_text``/
    ``body_source`` are for kernels whose spans point into a real text (the render tests)."""
    path = path or f"<{name}>"
    body = Block([Assume(r, kind="requires") for r in requires] + _flat(stmts),
                 source=body_source or BlockSource())
    k = Kernel(name, list(params), body, Launch(_dim3(block_dim), _dim3(grid_dim), warp_sync),
               path, source_text, memories=dict(memories or {}), requires=list(requires))

    def locate(stmt: Stmt) -> None:
        if stmt.span is None:
            stmt.span = Span(path, stmt.label, 1, stmt.label, 2)
        else:
            stmt.span = dataclasses.replace(stmt.span, file=path)

    assign_labels(k, locate)
    for stmt in walk_stmts(k.body):  # else blocks are labelled after their if
        if isinstance(stmt, If) and stmt.els is not None:
            els = stmt.els
            els.span = (Span(path, els.label, 1, els.label, 2) if els.span is None
                        else dataclasses.replace(els.span, file=path))
        k.uses_named_barriers |= isinstance(stmt, NamedBarrier)
    return k


@dataclass
class KernelBuilder:
    """Collects parameters, arrays and ``__requires``, then :meth:`build` calls :func:`kernel`."""

    name: str = "k"
    block_dim: tuple[int, int, int] | int = 16
    grid_dim: tuple[int, int, int] | int = 1
    warp_sync: int | None = None
    params: list[Param] = field(default_factory=list)
    memories: dict[str, Memory] = field(default_factory=dict)
    requires: list[Expr] = field(default_factory=list)

    def shared(self, name: str, size: int | None = None, elem: CType = INT) -> Memory:
        mem = shared(name, size, elem)
        self.memories[name] = mem
        return mem

    def global_array(self, name: str, elem: CType = INT) -> Memory:
        mem = Memory(name, Space.GLOBAL, elem, (None,))
        self.memories[name] = mem
        self.params.append(Param(name, CType("ptr", 64, False, f"{elem}*", elem), mem=mem))
        return mem

    def scalar(self, name: str, t: CType = INT) -> Var:
        var = Var(name, t)
        self.params.append(Param(name, t, var=var))
        return var

    def require(self, cond: Expr) -> None:
        self.requires.append(cond)

    def build(self, *stmts: StmtLike) -> Kernel:
        return kernel(stmts, self.block_dim, self.grid_dim, self.warp_sync, name=self.name,
                      params=self.params, requires=self.requires, memories=self.memories)


# --------------------------------------------------------------------------- paper examples

A = shared("A", 64)
X = Var("x")
EVEN = eq(mod(TID, 2), 0)


def leaf(line: int, *, read: bool = False, write: bool = False, placeable: bool = True) -> Assign:
    """Paper line ``line``: ``x = A[tid+1]`` (read), ``A[tid] = x`` (write) or ``x = x + 1``."""
    if write:
        return store(A, TID, X, line=line, placeable=placeable)
    return assign(X, load(A, add(TID, 1)) if read else add(X, 1), line=line, placeable=placeable)


def paper_kernel(name: str, stmts: Sequence[StmtLike]) -> Kernel:
    """A worked example over the shared array ``A`` (64 threads)."""
    return kernel(stmts, 64, name=name, memories={"A": A})


def fig6() -> Kernel:
    """Fig. 6 (left):  1 x = 0; 2 if(tid%2==0) { 3 x = A[tid+2]; 4 } 5 if(tid%6==0) {
    6 A[tid] += x; 7 }"""
    return paper_kernel("fig6", [
        leaf(1),
        if_(EVEN, [leaf(3, read=True)], line=2, end=4),
        if_(EVEN, [leaf(6, write=True)], line=5, end=7),
    ])


def by_name(tree: LabelTree, name: str) -> int:
    """The unique label called ``name`` (paper naming)."""
    found = [lab for lab in tree.nodes if tree.name(lab) == name]
    assert len(found) == 1, (name, found, [tree.name(lab) for lab in tree.nodes])
    return found[0]


@pytest.fixture(autouse=True)
def _no_result_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test sees real ``check`` runs: the result cache (``autosync.commands.cache``) is off unless
    a test turns it on (``monkeypatch.delenv("AUTOSYNC_NO_CACHE")``)."""
    monkeypatch.setenv("AUTOSYNC_NO_CACHE", "1")


#: tests left out of the default run (and CI's 15 minutes): whole-corpus checks that repeat
#: what faster tests pin; ``AUTOSYNC_SLOW_TESTS=1 python -m pytest -q`` runs them too
slow = pytest.mark.skipif(not os.environ.get("AUTOSYNC_SLOW_TESTS"),
                          reason="slow: set AUTOSYNC_SLOW_TESTS=1")
