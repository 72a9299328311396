"""``goto`` as structured control flow: which statements of a block a ``goto`` spans.

A ``goto L`` whose label ``L:`` is a later statement of an enclosing block skips the
statements in between: they become one *exit region* (translated as a :class:`kpl.ast.Inline`
block that the ``goto`` leaves with a ``Return``, the way a ``return`` leaves an inlined
function).  A ``goto L`` back to an earlier statement ``L:`` of an enclosing block repeats
the statements from ``L:`` to the goto: a *loop region* (a ``while (1)`` whose body ends in
``break``; the ``goto`` is its ``continue``).  Both keep every access and the order of
statements; every other shape (a jump into a block, crossing regions, both directions to
one label) is irreducible here and rejected by the caller.

This module only plans, over clang's statement nodes (labels are matched by clang's label
declaration ids); :mod:`kpl.frontend.stmts` translates the regions.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from kpl.frontend import tree
from kpl.frontend.tree import Node

LOOPS = {"ForStmt", "WhileStmt", "DoStmt", "CXXForRangeStmt"}


@dataclass(frozen=True)
class Region:
    """Statements ``items[start:end]`` of one block, spanned by the gotos to ``label``."""

    label: str  # clang's id of the label declaration
    name: str  # the label as written
    start: int
    end: int  # exclusive
    kind: str  # "exit" (forward gotos) or "loop" (backward gotos)


def find(node: Node, pred: Callable[[Node], bool], stop: set[str] | None = None) -> Node | None:
    """The first node under ``node`` (itself included) satisfying ``pred``, not descending
    into nodes of the ``stop`` kinds (other than ``node`` itself)."""
    if pred(node):
        return node
    for child in tree.children(node):
        if stop and tree.kind(child) in stop:
            continue
        found = find(child, pred, stop)
        if found is not None:
            return found
    return None


def jumps_to(label: str) -> Callable[[Node], bool]:
    return lambda n: tree.kind(n) == "GotoStmt" and n.get("targetLabelDeclId") == label


def plan(items: list[Node]) -> tuple[list[Region], str | None]:
    """The goto regions of one block's statement list, or an error message."""
    labels = {str(item.get("declId")): (k, str(item.get("name", "")))
              for k, item in enumerate(items) if tree.kind(item) == "LabelStmt"}
    regions: list[Region] = []
    for label, (at, name) in labels.items():
        users = [k for k, item in enumerate(items) if find(item, jumps_to(label)) is not None]
        if not users:
            continue
        forward = [k for k in users if k < at]
        backward = [k for k in users if k >= at]
        if forward and backward:
            return [], f"label '{name}' is the target of both forward and backward gotos"
        if forward:
            regions.append(Region(label, name, min(forward), at, "exit"))
        else:
            regions.append(Region(label, name, at, max(backward) + 1, "loop"))
    regions.sort(key=lambda r: (r.start, -r.end))
    for a in regions:
        for b in regions:
            if a.start < b.start < a.end < b.end:
                return [], f"the gotos to '{a.name}' and '{b.name}' cross"
    return regions, None


def escapes(items: list[Node], region: Region) -> str | None:
    """Why ``region`` cannot be a block of its own, or None: a ``break``/``continue`` that
    leaves it would leave the synthetic block instead, and in a loop region a ``goto`` back
    from inside an inner loop would continue that loop."""
    for item in items[region.start:region.end]:
        if find(item, lambda n: tree.kind(n) == "BreakStmt", LOOPS | {"SwitchStmt"}) is not None:
            return "a 'break' inside the statements a goto spans"
        if find(item, lambda n: tree.kind(n) == "ContinueStmt", LOOPS) is not None:
            return "a 'continue' inside the statements a goto spans"
        if region.kind == "loop":
            for loop in _loops(item):
                if find(loop, jumps_to(region.label)) is not None:
                    return f"a backward goto to '{region.name}' from inside a loop"
    return None


def _loops(node: Node) -> list[Node]:
    if tree.kind(node) in LOOPS | {"SwitchStmt"}:
        return [node]
    out: list[Node] = []
    for child in tree.children(node):
        out.extend(_loops(child))
    return out
