"""Label trees and label intervals (Sec. III-A), checked on the paper's own worked example.

Sec. III-A, on Fig. 6 (left):
    blk(3) = {main, 2:4};  blk(5:7) = {main};  [3, 6) = {3, 2:4, 5:7_s};  [3, 5:7) = {3, 2:4}
and "the set of all children of a block ℓ can be expressed as the interval [ℓ_s, ℓ)".

The kernel is built by hand with ``conftest.fig6`` (also used by test_transform/test_synthesis)
and parsed from CUDA text.
"""

from __future__ import annotations

from conftest import EVEN, by_name, fig6, if_, leaf, lt, paper_kernel, v, while_

from kpl.frontend import parse_kernel_text
from kpl.labels import LabelTree


def names(tree: LabelTree, labels: object) -> set[str]:
    return {tree.name(lab) for lab in labels}  # type: ignore[attr-defined]


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
    k = paper_kernel("fig4", [
        while_(lt(v("i"), 4), [leaf(2, read=True), leaf(3), leaf(4, write=True)], line=1, end=5)])
    tree = LabelTree(k)
    l2, l4, lp = by_name(tree, "2"), by_name(tree, "4"), by_name(tree, "1:5")
    assert tree.shared_loops(l2, l4) == (lp,)
    assert names(tree, tree.interval(l2, l4)) == {"2", "3"}
    inter = tree.interval(tree.start(lp), l2) + tree.interval(l4, lp)
    assert names(tree, inter) == {"1:5_s", "4"}


def test_else_block_is_right_sibling_of_if() -> None:
    k = paper_kernel("ifelse", [leaf(1), if_(EVEN, [leaf(3)], [leaf(5)], line=2, end=6, else_line=4),
                                leaf(7)])
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


def test_fig6_worked_example_from_cuda() -> None:
    kernel = parse_kernel_text(FIG6_CUDA, path="fig6.cu")
    tree = LabelTree(kernel)
    check_fig6(tree, offset=4)  # paper line 1 is our line 5
