"""Label trees and label intervals (Sec. III-A), checked on the paper's own worked example.

Sec. III-A, on Fig. 6 (left):
    blk(3) = {main, 2:4};  blk(5:7) = {main};  [3, 6) = {3, 2:4, 5:7_s};  [3, 5:7) = {3, 2:4}
and "the set of all children of a block ℓ can be expressed as the interval [ℓ_s, ℓ)".

The kernel is built by hand with :class:`KB` (also used by test_transform/test_synthesis) and,
when the front end is available, parsed from CUDA text.
"""

from __future__ import annotations

import importlib.util

import pytest

from kpl.ast import (
    INT,
    Assign,
    Barrier,
    Binary,
    Block,
    Builtin,
    Const,
    If,
    Kernel,
    Launch,
    Load,
    Loop,
    MemElem,
    Memory,
    Space,
    Span,
    Stmt,
    Var,
)
from kpl.labels import LabelTree

HAVE_FRONTEND = importlib.util.find_spec("kpl.frontend") is not None

A = Memory("A", Space.SHARED, INT, (64,))
X = Var("x")
TID = Builtin("threadIdx", "x")


class KB:
    """A tiny KPL builder for tests: statements are given their paper line numbers, so that
    ``LabelTree.name`` yields the paper's names (``3``, ``2:4``, ``2:4_s``, ``main``)."""

    def __init__(self, name: str = "k") -> None:
        self.name = name
        self.next = 0
        self.main = self.fresh()
        self.main_start = self.fresh()

    def fresh(self) -> int:
        lab = self.next
        self.next += 1
        return lab

    @staticmethod
    def span(line: int, end: int | None = None) -> Span:
        return Span("<kb>", line, 1, end or line, 80)

    def leaf(self, line: int, *, read: bool = False, write: bool = False, placeable: bool = True) -> Stmt:
        """``x = A[tid+1]`` (read), ``A[tid] = x`` (write) or ``x = x + 1``."""
        if write:
            return Assign(MemElem(A, TID), X, label=self.fresh(), span=self.span(line),
                          placeable=placeable)
        value = (Load(A, Binary("+", TID, Const(1)), INT) if read
                 else Binary("+", X, Const(1)))
        return Assign(X, value, label=self.fresh(), span=self.span(line), placeable=placeable)

    def barrier(self, line: int) -> Barrier:
        return Barrier(label=self.fresh(), span=self.span(line))

    def block(self, label: int, stmts: list[Stmt]) -> Block:
        return Block(stmts, label=label, start_label=self.fresh())

    def if_(self, line: int, end: int, stmts: list[Stmt], els: list[Stmt] | None = None,
            else_line: int | None = None, cond: object = None) -> If:
        lab = self.fresh()
        els_block = None
        if els is not None:
            els_block = self.block(self.fresh(), els)
            els_block.span = self.span(else_line or end, end)
        guard = cond if cond is not None else Binary("==", Binary("%", TID, Const(2)), Const(0))
        return If(guard, self.block(lab, stmts), els_block, label=lab,  # type: ignore[arg-type]
                  span=self.span(line, end if els is None else (else_line or end) - 1))

    def loop(self, line: int, end: int, stmts: list[Stmt]) -> Loop:
        lab = self.fresh()
        return Loop(Binary("<", Var("i"), Const(4)), self.block(lab, stmts), label=lab,
                    span=self.span(line, end), kind="while")

    def kernel(self, stmts: list[Stmt]) -> Kernel:
        body = Block(stmts, label=self.main, start_label=self.main_start)
        return Kernel(self.name, [], body, Launch((64, 1, 1), (1, 1, 1)), "<kb>", "",
                      memories={"A": A}, next_label=self.next)


def by_name(tree: LabelTree, name: str) -> int:
    """The unique label called ``name`` (paper naming)."""
    found = [lab for lab in tree.nodes if tree.name(lab) == name]
    assert len(found) == 1, (name, found, [tree.name(lab) for lab in tree.nodes])
    return found[0]


def names(tree: LabelTree, labels: object) -> set[str]:
    return {tree.name(lab) for lab in labels}  # type: ignore[attr-defined]


def fig6() -> Kernel:
    """Fig. 6 (left):  1 x = 0; 2 if(tid%2==0) { 3 x = A[tid+2]; 4 } 5 if(tid%6==0) {
    6 A[tid] += x; 7 }"""
    kb = KB("fig6")
    return kb.kernel([
        kb.leaf(1),
        kb.if_(2, 4, [kb.leaf(3, read=True)]),
        kb.if_(5, 7, [kb.leaf(6, write=True)]),
    ])


def check_fig6(tree: LabelTree, offset: int = 0) -> None:
    """The Sec. III-A claims, with line numbers shifted by ``offset``."""

    def n(line: int, end: int | None = None, start: bool = False) -> str:
        base = str(line + offset) if end is None else f"{line + offset}:{end + offset}"
        return base + ("_s" if start else "")

    l3, b24, b57, l6 = (by_name(tree, n(3)), by_name(tree, n(2, 4)), by_name(tree, n(5, 7)),
                        by_name(tree, n(6)))
    assert [tree.name(b) for b in tree.blk(l3)] == ["main", n(2, 4)]
    assert [tree.name(b) for b in tree.blk(b57)] == ["main"]
    assert names(tree, tree.interval(l3, l6)) == {n(3), n(2, 4), n(5, 7, start=True)}
    assert [tree.name(x) for x in tree.interval(l3, l6)] == [n(3), n(2, 4), n(5, 7, start=True)]
    assert names(tree, tree.interval(l3, b57)) == {n(3), n(2, 4)}
    # children of a block ℓ are [ℓ_s, ℓ)
    for blk in (b24, b57, tree.root):
        assert list(tree.interval(tree.start(blk), blk)) == tree.children(blk)
    assert names(tree, tree.interval(tree.start(b24), b24)) == {n(2, 4, start=True), n(3)}
    # text order is post-order: children before their block
    assert tree.precedes(l3, b24) and tree.precedes(b24, tree.start(b57)) and tree.precedes(l6, b57)
    assert tree.conds(l6) == (b57,) and tree.loops(l6) == ()


def test_fig6_worked_example_built_by_hand() -> None:
    tree = LabelTree(fig6())
    check_fig6(tree)
    assert tree.name(tree.root) == "main"
    assert [tree.name(lab) for lab in tree.labels()] == [
        "main_s", "1", "2:4_s", "3", "2:4", "5:7_s", "6", "5:7", "main"]


def test_interval_half_open_and_empty() -> None:
    tree = LabelTree(fig6())
    l3 = by_name(tree, "3")
    assert tree.interval(l3, l3) == ()
    assert tree.closed_interval(l3, by_name(tree, "6"))[-1] == by_name(tree, "6")
    assert not tree.placeable(tree.root)


def test_fig4_loop_intervals() -> None:
    """Sec. II-B / III-B on Fig. 4: P⁰ ⇒ L2 ∨ L3 and P¹ ⇒ L_{1:5_s} ∨ L4; C(1:5) = 1, C(2) = 100."""
    kb = KB("fig4")
    k = kb.kernel([kb.loop(1, 5, [kb.leaf(2, read=True), kb.leaf(3), kb.leaf(4, write=True)])])
    tree = LabelTree(k)
    l2, l4, lp = by_name(tree, "2"), by_name(tree, "4"), by_name(tree, "1:5")
    assert tree.shared_loops(l2, l4) == (lp,)
    assert names(tree, tree.interval(l2, l4)) == {"2", "3"}
    inter = tree.interval(tree.start(lp), l2) + tree.interval(l4, lp)
    assert names(tree, inter) == {"1:5_s", "4"}


def test_else_block_is_right_sibling_of_if() -> None:
    kb = KB("ifelse")
    k = kb.kernel([kb.leaf(1), kb.if_(2, 6, [kb.leaf(3)], [kb.leaf(5)], else_line=4), kb.leaf(7)])
    tree = LabelTree(k)
    ifl = by_name(tree, "2:3")
    els = by_name(tree, "4:6")
    assert tree.children(tree.root)[2:4] == [ifl, els]
    assert not tree.placeable(ifl)  # between `}` and `else`
    assert tree.placeable(els)


# --------------------------------------------------------------------------- from CUDA text

FIG6_CUDA = """\
__global__ void fig6(int *unused) {
  __shared__ int A[66];
  int tid = threadIdx.x;
  int x;
  x = 0;
  if (tid%2==0) {
    x = A[tid+2];
  }
  if (tid%6==0) {
    A[tid] += x;
  }
}
"""


@pytest.mark.skipif(not HAVE_FRONTEND, reason="kpl.frontend not written yet")
def test_fig6_worked_example_from_cuda() -> None:
    from kpl.frontend import parse_kernel_text  # type: ignore[import-not-found]

    kernel = parse_kernel_text(FIG6_CUDA, path="fig6.cu")
    tree = LabelTree(kernel)
    check_fig6(tree, offset=4)  # paper line 1 is our line 5
