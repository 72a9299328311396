"""``goto`` as structured control flow: which statements of a block a ``goto`` spans.

A ``goto L`` whose label ``L:`` is a later statement of an enclosing block skips the
statements in between: they become one *exit region* (lowered as a :class:`kpl.ast.Inline`
block that the ``goto`` leaves with a ``Return``, the way a ``return`` leaves an inlined
function).  A ``goto L`` back to an earlier statement ``L:`` of an enclosing block repeats
the statements from ``L:`` to the goto: a *loop region* (a ``while (1)`` whose body ends in
``break``; the ``goto`` is its ``continue``).  Both keep every access and the order of
statements; every other shape (a jump into a block, crossing regions, both directions to
one label) is irreducible here and rejected by the caller.

This module only plans; :mod:`kpl.fe.stmts` lowers the regions.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from pycparser import c_ast

LOOPS = (c_ast.For, c_ast.While, c_ast.DoWhile)


@dataclass(frozen=True)
class Region:
    """Statements ``items[start:end]`` of one block, spanned by the gotos to ``label``."""

    label: str
    start: int
    end: int  # exclusive
    kind: str  # "exit" (forward gotos) or "loop" (backward gotos)


def find(node: c_ast.Node, pred: Callable[[c_ast.Node], bool],
         stop: tuple[type, ...] = ()) -> c_ast.Node | None:
    """The first node under ``node`` (itself included) satisfying ``pred``, not descending
    into nodes of the ``stop`` classes (other than ``node`` itself)."""
    if pred(node):
        return node
    for _, child in node.children():
        if isinstance(child, stop):
            continue
        found = find(child, pred, stop)
        if found is not None:
            return found
    return None


def jumps_to(name: str) -> Callable[[c_ast.Node], bool]:
    return lambda n: isinstance(n, c_ast.Goto) and n.name == name


def plan(items: list[c_ast.Node]) -> tuple[list[Region], str | None]:
    """The goto regions of one block's statement list, or an error message."""
    labels = {item.name: k for k, item in enumerate(items) if isinstance(item, c_ast.Label)}
    regions: list[Region] = []
    for name, at in labels.items():
        users = [k for k, item in enumerate(items) if find(item, jumps_to(name)) is not None]
        if not users:
            continue
        forward = [k for k in users if k < at]
        backward = [k for k in users if k >= at]
        if forward and backward:
            return [], f"label '{name}' is the target of both forward and backward gotos"
        if forward:
            regions.append(Region(name, min(forward), at, "exit"))
        else:
            regions.append(Region(name, at, max(backward) + 1, "loop"))
    regions.sort(key=lambda r: (r.start, -r.end))
    for a in regions:
        for b in regions:
            if a.start < b.start < a.end < b.end:
                return [], f"the gotos to '{a.label}' and '{b.label}' cross"
    return regions, None


def escapes(items: list[c_ast.Node], region: Region) -> str | None:
    """Why ``region`` cannot be a block of its own, or None: a ``break``/``continue`` that
    leaves it would leave the synthetic block instead, and in a loop region a ``goto`` back
    from inside an inner loop would continue that loop."""
    body = items[region.start:region.end]
    for item in body:
        if find(item, lambda n: isinstance(n, c_ast.Break), LOOPS + (c_ast.Switch,)) is not None:
            return "a 'break' inside the statements a goto spans"
        if find(item, lambda n: isinstance(n, c_ast.Continue), LOOPS) is not None:
            return "a 'continue' inside the statements a goto spans"
        if region.kind == "loop":
            for loop in _loops(item):
                if find(loop, jumps_to(region.label)) is not None:
                    return f"a backward goto to '{region.label}' from inside a loop"
    return None


def _loops(node: c_ast.Node) -> list[c_ast.Node]:
    out: list[c_ast.Node] = []
    if isinstance(node, LOOPS + (c_ast.Switch,)):
        return [node]
    for _, child in node.children():
        out.extend(_loops(child))
    return out
