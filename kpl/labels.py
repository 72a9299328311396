"""Label trees, text order and label intervals (Sec. III-A of the AutoSync paper).

A kernel's label tree has one node per statement label; a node's parent is the label of its
enclosing block, and every block gets a *start node* ℓ_s as its leftmost child so that "a
barrier after ℓ_s" means "a barrier at the beginning of the block".  Compound statements
double as their blocks.  An ``else`` branch is its own block node, the right sibling of its
``if`` (the standard desugaring ``p := e; if p {A}; if !p {B}``).

Program text order ≺ is the post-order of the tree.  A label interval [ℓ1, ℓ2) is the set of
labels ℓ with ℓ1 ⪯ ℓ ≺ ℓ2 whose enclosing blocks are all enclosing blocks of ℓ1 or ℓ2:
``blk(ℓ) ⊆ blk(ℓ1) ∪ blk(ℓ2)``.  These intervals are exactly where one barrier separates two
accesses in every SDV trace, which is what makes the placement constraints of Sec. III-B
sound.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass, field

from kpl.ast import Block, If, Inline, Kernel, Loop, Stmt, Switch

MAIN = "main"
START = "start"
LEAF = "leaf"
IF = "if"
ELSE = "else"
LOOP = "loop"
SWITCH = "switch"
INLINE = "inline"

#: node kinds that count in conds(ℓ) for the cost model (Sec. III-C)
COND_KINDS = (IF, ELSE, SWITCH)


@dataclass
class LabelNode:
    label: int
    kind: str
    parent: int | None
    children: list[int] = field(default_factory=list)
    stmt: Stmt | None = None
    block: Block | None = None
    placeable: bool = True


class LabelTree:
    """The label tree of one kernel, with the queries Algorithm 1 needs.

    All set-valued queries return tuples ordered root-downward (``blk``) or in text order
    (``interval``), so callers get deterministic constraint systems.
    """

    def __init__(self, kernel: Kernel) -> None:
        self.kernel = kernel
        self.nodes: dict[int, LabelNode] = {}
        self.root = kernel.body.label
        self._add_block(kernel.body, MAIN, None, None)
        self._order: dict[int, int] = {}
        self._post_order(self.root)
        self._blk: dict[int, tuple[int, ...]] = {}
        for label in self.nodes:
            self._blk[label] = self._ancestors(label)

    # ------------------------------------------------------------------ construction

    def _add_block(self, block: Block, kind: str, parent: int | None, stmt: Stmt | None,
                   placeable: bool = True) -> None:
        node = LabelNode(block.label, kind, parent, stmt=stmt, block=block, placeable=placeable)
        self.nodes[block.label] = node
        self.nodes[block.start_label] = LabelNode(block.start_label, START, block.label,
                                                  block=block, placeable=block.placeable_start)
        node.children.append(block.start_label)
        for child in block.stmts:
            self._add_stmt(child, block.label)
        if isinstance(stmt, Loop):
            for latch in stmt.latch:
                self._add_stmt(latch, block.label)

    def _add_stmt(self, stmt: Stmt, parent: int) -> None:
        siblings = self.nodes[parent].children
        if isinstance(stmt, If):
            # With an else branch, "after the then-block" is between `}` and `else`: no
            # legal source position, so it is not placeable.
            then_placeable = stmt.placeable and stmt.els is None
            self._add_block(stmt.then, IF, parent, stmt, then_placeable)
            siblings.append(stmt.label)
            if stmt.els is not None:
                self._add_block(stmt.els, ELSE, parent, stmt, stmt.placeable)
                siblings.append(stmt.els.label)
        elif isinstance(stmt, (Loop, Switch, Inline)):
            kind = LOOP if isinstance(stmt, Loop) else SWITCH if isinstance(stmt, Switch) else INLINE
            self._add_block(stmt.body, kind, parent, stmt, stmt.placeable)
            siblings.append(stmt.label)
        else:
            self.nodes[stmt.label] = LabelNode(stmt.label, LEAF, parent, stmt=stmt,
                                               placeable=stmt.placeable)
            siblings.append(stmt.label)

    def _post_order(self, root: int) -> None:
        # iterative post-order: deep kernels must not hit Python's recursion limit
        stack: list[tuple[int, bool]] = [(root, False)]
        while stack:
            label, expanded = stack.pop()
            if expanded:
                self._order[label] = len(self._order)
                continue
            stack.append((label, True))
            for child in reversed(self.nodes[label].children):
                stack.append((child, False))

    def _ancestors(self, label: int) -> tuple[int, ...]:
        chain: list[int] = []
        parent = self.nodes[label].parent
        while parent is not None:
            chain.append(parent)
            parent = self.nodes[parent].parent
        return tuple(reversed(chain))

    # ------------------------------------------------------------------ queries

    def labels(self) -> list[int]:
        """All labels in text order (post-order)."""
        return sorted(self.nodes, key=self._order.__getitem__)

    def leaves(self) -> list[int]:
        return [lab for lab in self.labels() if self.nodes[lab].kind == LEAF]

    def kind(self, label: int) -> str:
        return self.nodes[label].kind

    def stmt(self, label: int) -> Stmt | None:
        return self.nodes[label].stmt

    def parent(self, label: int) -> int | None:
        return self.nodes[label].parent

    def children(self, label: int) -> list[int]:
        return list(self.nodes[label].children)

    def is_block(self, label: int) -> bool:
        return self.nodes[label].kind not in (LEAF, START)

    def start(self, block_label: int) -> int:
        """ℓ_s of the block ``block_label``."""
        block = self.nodes[block_label].block
        assert block is not None, f"label {block_label} is not a block"
        return block.start_label

    def placeable(self, label: int) -> bool:
        """May a barrier be rendered right after ``label``?  (Never after ``main`` itself.)"""
        return label != self.root and self.nodes[label].placeable

    def order(self, label: int) -> int:
        return self._order[label]

    def precedes(self, a: int, b: int) -> bool:
        """a ≺ b in program text order."""
        return self._order[a] < self._order[b]

    def blk(self, label: int) -> tuple[int, ...]:
        """Enclosing blocks of ``label`` (its ancestors), root downward."""
        return self._blk[label]

    def loops(self, label: int) -> tuple[int, ...]:
        return tuple(b for b in self._blk[label] if self.nodes[b].kind == LOOP)

    def conds(self, label: int) -> tuple[int, ...]:
        return tuple(b for b in self._blk[label] if self.nodes[b].kind in COND_KINDS)

    def shared_loops(self, a: int, b: int) -> tuple[int, ...]:
        """loops(a) ∩ loops(b), outermost first: the ℓ^1 … ℓ^d of Alg. 1, line 6."""
        other = set(self.loops(b))
        return tuple(lp for lp in self.loops(a) if lp in other)

    def innermost_block(self, label: int) -> int:
        """last(blk(ℓ)) -- the ℓ^d of Alg. 1, line 24."""
        return self._blk[label][-1]

    def interval(self, first: int, last: int) -> tuple[int, ...]:
        """[first, last): ℓ with first ⪯ ℓ ≺ last and blk(ℓ) ⊆ blk(first) ∪ blk(last)."""
        lo, hi = self._order[first], self._order[last]
        allowed = set(self._blk[first]) | set(self._blk[last])
        return tuple(lab for lab in self.labels()
                     if lo <= self._order[lab] < hi and set(self._blk[lab]) <= allowed)

    def closed_interval(self, first: int, last: int) -> tuple[int, ...]:
        """[first, last] = [first, last) ∪ {last}."""
        return self.interval(first, last) + (last,)

    def depth(self, label: int) -> int:
        return len(self._blk[label])

    # ------------------------------------------------------------------ display

    def line(self, label: int) -> int | None:
        node = self.nodes[label]
        if node.kind == START:
            parent = self.nodes[node.parent] if node.parent is not None else None
            stmt = parent.stmt if parent else None
        else:
            stmt = node.stmt
        return stmt.span.line if stmt is not None and stmt.span is not None else None

    def name(self, label: int) -> str:
        """The paper's naming: a line number ``3``, a line span ``2:4`` for blocks, ``2:4_s``
        for start nodes, ``main`` for the kernel body."""
        node = self.nodes[label]
        if label == self.root:
            return MAIN
        if node.kind == START:
            assert node.parent is not None
            return self.name(node.parent) + "_s"
        stmt = node.stmt
        span = stmt.span if stmt is not None else None
        if node.kind == ELSE and node.block is not None:
            span = node.block.span
        if span is None:
            return f"#{label}"
        if span.end_line and span.end_line != span.line:
            return f"{span.line}:{span.end_line}"
        return str(span.line)


def assign_labels(kernel: Kernel, on_stmt: Callable[[Stmt], None] | None = None) -> None:
    """Give every statement and block of a hand-built ``kernel`` a fresh label, pre-order:
    the ``main`` block first, a compound statement's block shares its label, an ``else``
    block and every start node ℓ_s get labels of their own, loop latches are leaves after
    the body.  ``on_stmt`` sees each statement once it is labelled (e.g. to give it a span).
    The front end labels as it lowers; this is for kernels built directly as KPL (tests,
    generators, benchmarks)."""
    counter = itertools.count()

    def block(blk: Block, label: int) -> None:
        blk.label = label
        blk.start_label = next(counter)
        for stmt in blk.stmts:
            statement(stmt)

    def statement(stmt: Stmt) -> None:
        stmt.label = next(counter)
        if on_stmt is not None:
            on_stmt(stmt)
        if isinstance(stmt, If):
            block(stmt.then, stmt.label)
            if stmt.els is not None:
                block(stmt.els, next(counter))
        elif isinstance(stmt, (Loop, Switch, Inline)):
            block(stmt.body, stmt.label)
            if isinstance(stmt, Loop):
                for latch in stmt.latch:
                    statement(latch)

    block(kernel.body, next(counter))
    kernel.next_label = next(counter)
