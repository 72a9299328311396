"""Pointers held in memory and in arrays, and locals whose address is held.

A pointer stored into memory (a struct member in an array, a ``__shared__`` pointer, an
element of an array of pointers in memory) writes its bytes: its address as an opaque value
(:meth:`kpl.frontend.pointers.PointersTranslation.address_value`); read back, it has no
known array (:class:`kpl.frontend.state.UnknownPointer`).  A local array of pointers
(``float *bufs[2] = {a, b}``, or one in a struct kernel parameter) is a
:class:`kpl.frontend.state.PointerArray`: one pointer value per element, ``bufs[k]`` a
choice over the elements by ``k`` and an access through it a choice over their bases, split
as any pointer value's.  A local scalar whose address a pointer is set to again, or holds as
a value (``p = &a; if (c) p = &b``), is a one-cell private memory, a base like any array
(:attr:`kpl.frontend.state.PointsTo.addressed`; the kernel is translated again).
"""

from __future__ import annotations

from kpl import ast as K
from kpl.frontend import tree
from kpl.frontend.access import EXPLICIT_CASTS, decl_id, peel, subscript_parts
from kpl.frontend.pointers import NULL_VALUE, OFFSET, TAG, PointersTranslation, PtrValue
from kpl.frontend.state import (
    Binding,
    DynPointer,
    LocalPointer,
    PointerArray,
    PointerBinding,
    RetryTranslation,
    Scope,
    Split,
    UnknownPointer,
)
from kpl.frontend.tree import Node


class HeldTranslation(PointersTranslation):
    """Pointers stored into memory, arrays of pointers, locals held in memory."""

    def hold_in_memory(self, *nodes: Node | None, scope: Scope, found: object = None) -> None:
        """A pointer to a local scalar that is set again, or held as a value (``p = &a; …
        p = &b``, ``c ? &a : &b``): each local scalar it may point to becomes a one-cell
        private memory (:attr:`PointsTo.addressed`), a base like any array, and the kernel is
        translated again.  Returns when there is nothing to hold (the caller reports)."""
        idents = {found.ident} if isinstance(found, LocalPointer) and found.ident else set()
        for node in nodes:
            if node is None:
                continue
            for sub in _address_operands(node):
                local = self.local_pointer(sub, scope)
                if local is not None and local.ident:
                    idents.add(local.ident)
        idents -= self.points_to.addressed
        if idents:
            self.points_to.addressed.update(idents)
            raise RetryTranslation(", ".join(sorted(idents)))

    def store_pointer(self, node: Node, scope: Scope) -> list[K.Stmt]:
        """``m = p`` where ``m`` is memory holding a pointer (a struct member in an array, a
        ``__shared__`` pointer, an element of an array of pointers): the store writes the
        pointer's bytes, its address as an opaque value (equal pointers, equal values), or
        the bytes it was read from.  A pointer read back from memory has no known array:
        accessing memory through it is refused."""
        lhs, rhs = tree.children(node)[:2]
        element = self.array_element_of(lhs, scope)
        if element is not None:
            return self.store_element(node, element[0], element[1], scope)
        out: list[K.Stmt] = []
        value = self.address_value(rhs, scope, out, K.ULONG)
        if value is None and isinstance(scope.lookup(decl_id(rhs) or ""), UnknownPointer):
            value = self.temp(K.ULONG, "addr")  # an address nothing is known of: arbitrary
            out.append(K.Decl(value, None, label=self.label(), placeable=False, synthetic=True))
        elif value is None:  # no known array (read from memory, made from an integer): its bytes
            self.hold_in_memory(rhs, scope=scope)
            value = self.expr(rhs, scope, out)
        target = self.lvalue(lhs, scope, out)
        if isinstance(target, K.Var):
            raise self.error("unsupported: assignment of a pointer to a variable holding it as "
                             "a value", node)
        self.check_writable(target, node)
        out.append(K.Assign(target, value, label=self.label()))
        return out

    # ------------------------------------------------------------------ arrays of pointers

    def pointer_array(self, ident: str, name: str, pointee: K.CType, extent: int,
                      items: list[Node], scope: Scope, out: list[K.Stmt], *,
                      initial: list[PointerBinding] | None = None) -> PointerArray:
        """``T *a[n] = {p, q}``: one pointer value per element (null where not given;
        ``initial``: what the elements of a parameter point to)."""
        slots: list[DynPointer] = []
        for k in range(extent):
            item = items[k] if k < len(items) else None
            value: PtrValue | PointerBinding | None = NULL_VALUE
            if initial is not None:
                value = initial[k]
            elif item is not None:
                value = self.pvalue(item, scope, out, pointee)
            if value is None:
                assert item is not None
                self.hold_in_memory(item, scope=scope)
                raise self.error(f"unsupported: element {k} of pointer array '{name}' cannot be "
                                 f"bounded to known arrays: {self.unbounded(item)}", item)
            slots.append(self.new_dyn(ident, f"{name}[{k}]", pointee, value, out))
        return PointerArray(ident, name, pointee, slots)

    def array_element_of(self, node: Node, scope: Scope) -> tuple[PointerArray, Node] | None:
        """(the array, the index) when ``node`` is ``a[k]`` of a local array of pointers."""
        node = peel(node)
        if tree.kind(node) != "ArraySubscriptExpr":
            return None
        base, index = subscript_parts(node)
        if tree.kind(peel(base)) == "MemberExpr":  # `s.rows[k]` of an object's array member
            found = self.object_member(peel(base), scope)
        else:
            found = scope.lookup(decl_id(base) or "")
        return (found, index) if isinstance(found, PointerArray) else None

    def object_member(self, node: Node, scope: Scope) -> Binding | None:
        """What a member of an object stands for: :mod:`kpl.frontend.members`."""
        raise NotImplementedError

    def element_value(self, arr: PointerArray, index_node: Node, scope: Scope,
                      pre: list[K.Stmt]) -> PtrValue:
        """``a[k]``: element k's value, or a choice over the elements by ``k``."""
        index = self.expr(index_node, scope, pre)
        if isinstance(index, K.Const):
            return self.dyn_value(arr.slots[self._slot(arr, index, index_node)])
        tag: K.Expr = arr.slots[-1].tag
        off: K.Expr = arr.slots[-1].off
        for k in range(len(arr.slots) - 2, -1, -1):
            hit = K.Binary("==", index, K.Const(k, index.type), K.BOOL)
            tag = K.Cond(hit, arr.slots[k].tag, tag, TAG)
            off = K.Cond(hit, arr.slots[k].off, off, OFFSET)
        return PtrValue(tag, off, frozenset(self.points_to.bases.get(arr.ident, set())))

    def _slot(self, arr: PointerArray, index: K.Const, node: Node) -> int:
        k = int(index.value)
        if not 0 <= k < len(arr.slots):
            raise self.error(f"index {k} is outside pointer array '{arr.name}' of {len(arr.slots)} "
                             "elements", node)
        return k

    def pointer_array_element(self, node: Node, scope: Scope) -> PointerBinding | None:
        """An access through ``a[k]``: split over the bases of the array's elements (the
        value ``a[k]`` is bound, under a name of its own, to one base per arm)."""
        found = self.array_element_of(node, scope)
        if found is None:
            return None
        key = f"@{id(peel(node))}"
        bound = scope.lookup(key)
        if isinstance(bound, PointerBinding):
            return bound
        pre: list[K.Stmt] = []
        value = self.element_value(found[0], found[1], scope, pre)
        if pre:
            raise self.error(f"unsupported: an index of pointer array '{found[0].name}' with side "
                             "effects, used to reach memory", node)
        dyn = DynPointer(key, f"{found[0].name}[…]", found[0].pointee, value.tag, value.off)  # type: ignore[arg-type]
        self.points_to.bases[key] = set(value.bases)
        scope.names[key] = dyn
        raise Split(key, dyn, scope)

    def store_element(self, node: Node, arr: PointerArray, index_node: Node,
                      scope: Scope) -> list[K.Stmt]:
        """``a[k] = p``: element k set, or each element set where ``k`` names it."""
        rhs = tree.children(node)[1]
        out: list[K.Stmt] = []
        value = self.pvalue(rhs, scope, out, arr.pointee)
        if value is None:
            self.hold_in_memory(rhs, scope=scope)
            raise self.error(f"unsupported: pointer stored into pointer array '{arr.name}' cannot "
                             f"be bounded to known arrays: {self.unbounded(rhs)}", node)
        v = value if isinstance(value, PtrValue) else self.as_value(value, arr.pointee, rhs)
        index = self.expr(index_node, scope, out)
        if isinstance(index, K.Const):
            return out + self.assign_dyn(arr.slots[self._slot(arr, index, index_node)], v, node)
        bases = self.points_to.bases.setdefault(arr.ident, set())
        if not v.bases <= bases:
            bases.update(v.bases)
            raise RetryTranslation(arr.name)
        tag, off, at = self.temp(TAG, "tag"), self.temp(OFFSET, "off"), self.temp(index.type, "at")
        for var, init in ((tag, v.tag), (off, v.off), (at, index)):
            out.append(K.Decl(var, init, label=self.label(), placeable=False, synthetic=True))
        for k, slot in enumerate(arr.slots):
            hit = K.Binary("==", at, K.Const(k, index.type), K.BOOL)
            out.append(K.Assign(slot.off, K.Cond(hit, off, slot.off, OFFSET), label=self.label()))
            out.append(K.Assign(slot.tag, K.Cond(hit, tag, slot.tag, TAG), label=self.label()))
        return out


def _address_operands(node: Node) -> list[Node]:
    """``node`` and the arms of the conditionals, casts and pointer arithmetic it is made
    of: the expressions that may give a pointer its value."""
    node = peel(node)
    k = tree.kind(node)
    if k == "ConditionalOperator":
        return [x for c in tree.children(node)[1:3] for x in _address_operands(c)]
    if k in EXPLICIT_CASTS or k == "ImplicitCastExpr":
        return _address_operands(tree.children(node)[0])
    if k == "BinaryOperator" and node.get("opcode") in ("+", "-"):  # `(float *)&v + 1`
        return [x for c in tree.children(node)[:2] for x in _address_operands(c)]
    return [node]
