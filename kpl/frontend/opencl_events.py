"""Which of OpenCL C's ``wait_group_events`` complete every async copy still in flight.

WHY: the oracles model a wait as completing every copy issued before it (one count per
work-group, :class:`kpl.ast.WaitEvents`).  That is right only where the wait names the
events of all those copies: ``wait_group_events(1, handles)`` after two copies into
``handles[0]`` and ``handles[1]`` completes the first only, and a read of the second's
destination after it still races.  This pass follows the events through the kernel's
top-level statements in order -- ``event_t e = async_work_group_copy(…, 0)``, ``e = …``,
``handles[k] = …``, a copy joining an event (its last argument) -- and lists the waits that
do NOT name every copy in flight: those complete nothing (sound: a copy then stays in flight,
racing with what follows).  Where it cannot follow the events (a copy or a wait inside a
branch or a loop, an event that is not a variable or a constant element of an event array,
a count that is not a constant) it claims nothing, and every wait keeps completing every
earlier copy (the known limit said in :mod:`kpl.frontend.opencl`).
"""

from __future__ import annotations

from kpl.frontend import tree
from kpl.frontend.access import decl_id, peel
from kpl.frontend.consteval import ConstEval
from kpl.frontend.tree import Node

_COPIES = {"async_work_group_copy", "async_work_group_strided_copy"}
_WAIT = "wait_group_events"


class _GiveUp(Exception):
    """The events cannot be followed: claim nothing."""


def _callee(node: Node) -> str | None:
    if tree.kind(node) != "CallExpr" or not tree.children(node):
        return None
    ref = peel(tree.children(node)[0]).get("referencedDecl") or {}
    name = ref.get("name")
    return str(name) if name else None


def partial_waits(func: Node, index: tree.DeclIndex) -> frozenset[str]:
    """The ids of the ``wait_group_events`` calls of kernel ``func`` that complete nothing
    (module docstring); empty where the events cannot be followed."""
    body = tree.body_of(func)
    if body is None:
        return frozenset()
    try:
        return frozenset(_Follow(index).run(tree.children(body)))
    except _GiveUp:
        return frozenset()


class _Follow:
    def __init__(self, index: tree.DeclIndex) -> None:
        self.index = index
        self.events: dict[str, frozenset[str]] = {}  # event (variable, or array[k]) -> copies
        self.flying: set[str] = set()                # copies issued and not waited for
        self.partial: list[str] = []

    def run(self, stmts: list[Node]) -> list[str]:
        for s in stmts:
            self.statement(s)
        return self.partial

    def statement(self, s: Node) -> None:
        k = tree.kind(s)
        if k == "DeclStmt":
            for d in tree.children(s):
                init = tree.children(d)
                if tree.kind(d) == "VarDecl" and init and self._copy_of(init[-1]):
                    self.events[str(d["id"])] = self.copy(peel(init[-1]))
                else:
                    self._no_event_calls(d)
            return
        e = peel(s)
        if tree.kind(e) == "BinaryOperator" and e.get("opcode") == "=" and \
                self._copy_of(tree.children(e)[1]):
            sites = self.copy(peel(tree.children(e)[1]))
            self.events[self.key(tree.children(e)[0])] = sites
            return
        if self._copy_of(e):
            self.copy(e)
            return
        if _callee(e) == _WAIT:
            self.wait(e)
            return
        self._no_event_calls(s)

    def _copy_of(self, node: Node) -> bool:
        return _callee(peel(node)) in _COPIES

    def _no_event_calls(self, node: Node) -> None:
        """A statement the pass does not follow: it must issue and wait for nothing."""
        if any(_callee(n) in _COPIES or _callee(n) == _WAIT for n in tree.walk(node)):
            raise _GiveUp

    def key(self, node: Node) -> str:
        """The event a handle expression names: a variable, or an element of an event array
        at a constant index."""
        node = peel(node)
        ident = decl_id(node)
        if ident is not None:
            return ident
        if tree.kind(node) == "ArraySubscriptExpr":
            base, at = tree.children(node)[:2]
            k = ConstEval(self.index).value(at)
            array = decl_id(base)
            if k is not None and array is not None:
                return f"{array}[{k}]"
        raise _GiveUp

    def copy(self, call: Node) -> frozenset[str]:
        """A copy: a new event, or the event its last argument names joined by this copy."""
        args = tree.children(call)[1:]
        if not args:
            raise _GiveUp
        site = str(call.get("id"))
        last = args[-1]
        if ConstEval(self.index).value(last) == 0:
            sites = frozenset({site})
        else:
            joined = self.key(last)
            sites = self.events.get(joined, frozenset()) | {site}
            self.events[joined] = sites
        self.flying.add(site)
        return sites

    def wait(self, call: Node) -> None:
        args = tree.children(call)[1:]
        n = ConstEval(self.index).value(args[0]) if len(args) == 2 else None
        if n is None or n < 1:
            raise _GiveUp
        where = peel(args[1])
        if tree.kind(where) == "UnaryOperator" and where.get("opcode") == "&":
            keys = [self.key(tree.children(where)[0])] if n == 1 else None
        else:
            array = decl_id(where)
            keys = [f"{array}[{k}]" for k in range(n)] if array is not None else None
        if keys is None:
            raise _GiveUp
        named: set[str] = set()
        for k in keys:
            named |= self.events.get(k, frozenset())
        if not self.flying <= named:
            self.partial.append(str(call.get("id")))
        self.flying -= named  # complete now, whether or not the oracles are told so
