"""INSERTBARRIERS (Alg. 1, line 20) and barrier stripping (Sec. IV-B)."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import EVEN, barrier, by_name, fig6, if_, leaf, lt, paper_kernel, v, while_

from kpl.ast import Barrier, Block, If, Kernel, Loop, NamedBarrier, Var, walk_stmts
from kpl.frontend import load_kernel
from kpl.labels import LabelTree
from kpl.transform import barrier_anchors, insert_barriers, strip_barriers, strip_barriers_detailed

ROOT = Path(__file__).resolve().parent.parent


def shape(block: Block) -> list[object]:
    """The statement structure: labels, with ``B`` for any barrier, nested lists for blocks."""
    out: list[object] = []
    for s in block.stmts:
        if isinstance(s, Barrier):
            out.append("B")
        elif isinstance(s, If):
            out.append((s.label, shape(s.then), shape(s.els) if s.els else None))
        elif isinstance(s, Loop):
            out.append((s.label, shape(s.body), [x.label for x in s.latch]))
        else:
            out.append(s.label)
    return out


def ifelse_kernel() -> Kernel:
    k = paper_kernel("ifelse", [
        leaf(1),
        if_(EVEN, [leaf(3)], [leaf(5)], line=2, end=6, else_line=4),
        while_(lt(v("i"), 4), [leaf(8)], line=7, end=9),
    ])
    return k


def test_insert_after_leaf_start_else_and_loop() -> None:
    k = ifelse_kernel()
    tree = LabelTree(k)
    l1, els, l5, lp = (by_name(tree, "1"), by_name(tree, "4:6"), by_name(tree, "5"),
                       by_name(tree, "7:9"))
    lp_s, main_s = tree.start(lp), tree.start(tree.root)
    before = shape(k.body)
    new, mapping = insert_barriers(k, [l1, els, lp_s, lp, main_s, tree.start(els)])
    assert shape(k.body) == before, "input must not be mutated"
    assert k.next_label == new.next_label - 6
    body = shape(new.body)
    assert body[0] == "B" and body[1] == l1 and body[2] == "B"
    assert isinstance(body[3], tuple) and body[3][2] == ["B", l5]  # after else_s
    assert body[4] == "B"  # after the whole if/else (else label)
    assert body[5] == (lp, ["B", by_name(tree, "8")], []) and body[6] == "B"
    # fresh labels, mapped to their anchors; old labels unchanged
    assert sorted(mapping.values()) == sorted([l1, els, lp_s, lp, main_s, tree.start(els)])
    assert all(b >= k.next_label for b in mapping)
    ntree = LabelTree(new)
    for b, anchor in mapping.items():
        assert isinstance(ntree.stmt(b), Barrier)
        sibs = ntree.children(ntree.parent(b))  # type: ignore[arg-type]
        assert sibs[sibs.index(b) - 1] == anchor, "barrier is the right sibling of its anchor"
    assert {lab for lab in tree.nodes} <= set(ntree.nodes)


def test_insert_rejects_unplaceable_and_unknown_labels() -> None:
    k = ifelse_kernel()
    tree = LabelTree(k)
    with pytest.raises(ValueError):
        insert_barriers(k, [by_name(tree, "2:3")])  # then-block of an if/else
    with pytest.raises(ValueError):
        insert_barriers(k, [tree.root])
    with pytest.raises(ValueError):
        insert_barriers(k, [999])


def test_insert_shares_expressions_and_copies_statements() -> None:
    k = fig6()
    new, _ = insert_barriers(k, [])
    old = list(walk_stmts(k.body))
    cpy = list(walk_stmts(new.body))
    assert [s.label for s in old] == [s.label for s in cpy]
    assert all(a is not b for a, b in zip(old, cpy, strict=True))
    cpy[0].placeable = False
    assert old[0].placeable


def test_strip_round_trip_with_named_barrier_kept() -> None:
    nb = NamedBarrier("sync", Var("b"))
    k = paper_kernel("strip", [
        barrier(line=1),
        leaf(2),
        barrier(line=3),
        barrier(line=4),
        if_(EVEN, [leaf(6), barrier(line=7)], [barrier(line=9)], line=5, end=9, else_line=8),
        barrier(line=10),
        while_(lt(v("i"), 4), [barrier(line=12), leaf(13)], line=11, end=14),
        nb,
    ])
    stripped, anchors = strip_barriers(k)
    assert not any(isinstance(s, Barrier) for s in walk_stmts(stripped.body))
    assert any(isinstance(s, NamedBarrier) for s in walk_stmts(stripped.body))
    assert len(anchors) == 7
    pairs = barrier_anchors(k)
    assert [a for a, _ in pairs] == anchors
    assert [b.span.line for _, b in pairs if b.span] == [1, 3, 4, 7, 9, 10, 12]
    _, detailed = strip_barriers_detailed(k)
    assert [d.barrier.span.line for d in detailed if d.barrier.span] == [1, 3, 4, 7, 9, 10, 12]
    again, _ = insert_barriers(stripped, anchors, check_placeable=False)
    assert shape(again.body) == shape(k.body)
    tree = LabelTree(k)
    assert anchors[0] == tree.start(tree.root)
    assert anchors[1] == anchors[2] == by_name(tree, "2")
    assert anchors[4] == tree.start(by_name(tree, "8:9"))
    assert anchors[5] == by_name(tree, "8:9")  # after the whole if/else


@pytest.mark.parametrize("name", sorted(p.name for p in (ROOT / "microbench" / "expected").glob("*.cu")))
def test_strip_expected_microbench_gives_the_input_structure(name: str) -> None:
    """Stripping the developer's barriers from microbench/expected/X.cu gives X.cu's structure,
    and putting them back (by anchor) restores expected/X.cu's."""
    expected = load_kernel(str(ROOT / "microbench" / "expected" / name))
    plain = load_kernel(str(ROOT / "microbench" / name))
    stripped, anchors = strip_barriers(expected)
    assert len(anchors) == int(expected.expected["min_barriers"])

    def kinds(block: Block) -> list[object]:
        out: list[object] = []
        for s in block.stmts:
            sub: list[Block] = []
            if isinstance(s, If):
                sub = [s.then] + ([s.els] if s.els else [])
            elif isinstance(s, Loop):
                sub = [s.body]
            out.append((type(s).__name__, [kinds(b) for b in sub]))
        return out

    assert kinds(stripped.body) == kinds(plain.body)
    back, _ = insert_barriers(stripped, anchors, check_placeable=False)
    assert kinds(back.body) == kinds(expected.body)
    tree = LabelTree(stripped)
    assert all(tree.placeable(a) for a in anchors)
