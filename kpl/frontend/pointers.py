"""Pointers as values: a pointer whose base is not one array on every path.

Most pointers name one array at every use (``float *row = a + y * w``): their binding is
static (:class:`kpl.frontend.state.PointerBinding`) and their KPL is that array's.  A pointer
that is set inside a loop or a branch (double buffers swapped each iteration), chosen by a
condition (``T *p = c ? a : b``) or copied from such a pointer is a VALUE: GPUVerify's pair
(base, offset) (papers/001 §4, papers/002 §3), held in two thread-private KPL variables
(:class:`kpl.frontend.state.DynPointer`): ``tag``, the number of its base (0 is null, see
:class:`kpl.frontend.state.PointsTo`), and ``off``, the offset in the base's unit.

The set of bases each such variable may hold is a flow-insensitive points-to fact,
computed while translating: when an assignment adds a base (or a pointer turns out to be
set under control flow) after code through it was translated, the kernel is translated
again (:class:`kpl.frontend.state.RetryTranslation`, at most once per new fact).

An access through a value is a guarded choice over its bases, built by the existing static
machinery: the innermost expression (or leaf statement) that needs a static binding catches
:class:`kpl.frontend.state.Split` and translates itself once per base with the name bound to
that base: a read becomes ``tag == 1 ? a[off + i] : b[off + i]`` (both oracles evaluate only
the chosen arm of a ``Cond``: sdv under its predicate, dynamic for the threads taking it), a
write or an atomic ``if (tag == 1) a[...] = v; else b[...] = v``.  A null base adds an
``Assert(tag != 0)`` of kind ``null``: a null dereference is a finding of both oracles.
Race and divergence queries thereby range over the bases; the dynamic oracle follows the
concrete tag.  Loops that change a value get Houdini candidates (its tag is one of its
bases, two such pointers differ) so that the loop abstraction of sdv keeps a swap's facts.

Why one piece of this size: the value, its variables, its tests and the split of the
accesses through it are one model; split, each part would re-derive the base numbering.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from kpl import ast as K
from kpl.ctypes import common_type, sizeof
from kpl.frontend import tree
from kpl.frontend.access import EXPLICIT_CASTS, AccessTranslation, decl_id, peel, subscript_parts
from kpl.frontend.state import (
    DynPointer,
    LocalPointer,
    PointerArray,
    PointerBinding,
    PointerRef,
    RetryTranslation,
    Scope,
    Split,
    UnboundPointer,
    UnknownPointer,
)
from kpl.frontend.tree import Node

_NULL_KINDS = {"CXXNullPtrLiteralExpr", "GNUNullExpr"}
TAG = K.INT  # type of a base number
OFFSET = K.INT  # type of an offset variable


@dataclass(frozen=True)
class PtrValue:
    """A pointer value as KPL expressions: its base number, its offset (in the unit of the
    base: elements, or bytes for a byte view), and the base numbers it may take."""

    tag: K.Expr
    off: K.Expr
    bases: frozenset[int]


NULL_VALUE = PtrValue(K.Const(0, TAG), K.Const(0, OFFSET), frozenset({0}))


class PointersTranslation(AccessTranslation):
    """Pointer values: their variables, assignments, tests, comparisons and split accesses."""

    # ------------------------------------------------------------------ values

    def is_null(self, node: Node) -> bool:
        node = peel(node)
        while tree.kind(node) in EXPLICIT_CASTS or tree.kind(node) == "ImplicitCastExpr":
            node = peel(tree.children(node)[0])
        if tree.kind(node) in _NULL_KINDS:
            return True
        return tree.kind(node) == "IntegerLiteral" and str(node.get("value")) == "0"

    def dyn_of(self, node: Node, scope: Scope) -> DynPointer | None:
        ident = decl_id(node)
        found = scope.lookup(ident) if ident else None
        if found is None:
            ref = self.referent(node, scope)
            found = ref[0].lookup(ref[1]) if ref is not None else None
        return found if isinstance(found, DynPointer) else None

    def referent(self, node: Node, scope: Scope) -> tuple[Scope, str, str] | None:
        """(scope, declaration id, name) of the pointer variable ``*pp`` is, when ``node`` is
        ``*pp`` (or ``pp[0]``) and ``pp`` a pointer to a pointer variable."""
        node = peel(node)
        if tree.kind(node) == "ArraySubscriptExpr":
            base, index = subscript_parts(node)
            index = peel(index)
            while tree.kind(index) == "ImplicitCastExpr":
                index = peel(tree.children(index)[0])
            if tree.kind(index) != "IntegerLiteral" or str(index.get("value")) != "0":
                return None
            pointee = base
        elif tree.kind(node) == "UnaryOperator" and node.get("opcode") == "*":
            pointee = tree.children(node)[0]
        else:
            return None
        ident = decl_id(pointee)
        found = scope.lookup(ident) if ident else None
        if isinstance(found, PointerRef):
            return found.home, found.ident, found.name
        return None

    def pointer_ref(self, node: Node, scope: Scope) -> PointerRef | None:
        """``&p`` of a pointer variable ``p`` (or a pointer to one, passed on)."""
        node = peel(node)
        ident = decl_id(node)
        found = scope.lookup(ident) if ident else None
        if isinstance(found, PointerRef):
            return found
        if tree.kind(node) == "UnaryOperator" and node.get("opcode") == "&":
            target = peel(tree.children(node)[0])
            ident = decl_id(target)
            found = scope.lookup(ident) if ident else None
            if ident and isinstance(found, (PointerBinding, UnboundPointer, UnknownPointer, DynPointer)) and \
                    tree.qual_type(target).rstrip().endswith("*"):
                home = scope
                while home.parent is not None and ident not in home.names:
                    home = home.parent
                name = str((target.get("referencedDecl") or {}).get("name", "?"))
                return PointerRef(home, ident, name)
        return None

    def local_pointer(self, node: Node, scope: Scope) -> LocalPointer | None:
        """``&x`` of a local scalar ``x`` (or a pointer to one, passed on)."""
        node = peel(node)
        found = scope.lookup(decl_id(node) or "")
        if isinstance(found, LocalPointer):
            return found
        if tree.kind(node) == "UnaryOperator" and node.get("opcode") == "&":
            ident = decl_id(tree.children(node)[0]) or ""
            target = scope.lookup(ident)
            if isinstance(target, K.Var):
                return LocalPointer(target, ident)
        return None

    def pointed_var(self, node: Node, scope: Scope) -> K.Var | None:
        """The variable ``*p`` is when ``p`` points to a local scalar (or ``p`` is ``&x``)."""
        local = self.local_pointer(node, scope)
        return local.var if local is not None else None

    def address_value(self, node: Node, scope: Scope, pre: list[K.Stmt], typ: K.CType) -> K.Expr | None:
        """``(size_t)p``: an address is not modelled, only that equal pointers give equal
        integers (an alignment test explores both outcomes)."""
        value = self.pvalue(node, scope, pre)
        if value is None:
            return None
        v = value if isinstance(value, PtrValue) else self.as_value(value, None, node)
        return K.Call("__kpl_address", (v.tag, v.off), typ)

    def referent_binding(self, node: Node, scope: Scope) -> PointerBinding | None:
        """``*pp``: the static binding of the variable ``pp`` points to (a value: split)."""
        ref = self.referent(node, scope)
        if ref is None:
            return None
        home, ident, name = ref
        found = home.lookup(ident)
        if isinstance(found, DynPointer):
            raise Split(ident, found, home)
        return found if isinstance(found, PointerBinding) else None

    def as_value(self, b: PointerBinding, pointee: K.CType | None, node: Node | None) -> PtrValue:
        """A static binding as a value of a pointer to ``pointee``: element units where the
        base is a one-dimensional array of that size, a byte view otherwise."""
        if pointee is not None and pointee.kind != "void":
            b = self._recast(b, pointee, node or {})
            if b.view is None and len(b.mem.dims) > 1:
                size = sizeof(b.mem.elem) or 1
                off = b.offset if size == 1 else K.Binary("*", b.offset, K.Const(size), b.offset.type)
                b = PointerBinding(b.mem, off, pointee)
        n = self.points_to.number(b.mem, b.view)
        return PtrValue(K.Const(n, TAG), self.convert(b.offset, OFFSET), frozenset({n}))

    def dyn_value(self, dyn: DynPointer) -> PtrValue:
        return PtrValue(dyn.tag, dyn.off, frozenset(self.points_to.bases.get(dyn.ident, set())))

    def pvalue(self, node: Node, scope: Scope, pre: list[K.Stmt],
               pointee: K.CType | None = None) -> PtrValue | PointerBinding | None:
        """What a pointer expression evaluates to: a static binding where it has one, a
        :class:`PtrValue` where it depends on the path, None where it is unknown."""
        node = peel(node)
        k = tree.kind(node)
        if self.is_null(node):
            return NULL_VALUE
        if isinstance(scope.lookup(decl_id(node) or ""), UnknownPointer):
            return None
        dyn = self.dyn_of(node, scope)
        if dyn is not None:
            return self.dyn_value(dyn)
        if k in EXPLICIT_CASTS or (k == "ImplicitCastExpr" and node.get("castKind") == "BitCast"):
            inner = self.pvalue(tree.children(node)[0], scope, pre)
            if isinstance(inner, PtrValue):
                to = self.type_of(node)
                if to.elem is not None and to.elem.kind != "void" and sizeof(to.elem) != self._unit_of(inner):
                    raise self.error("unsupported: cast of a pointer that may point into several "
                                     "arrays to a pointer of another size", node)
                return inner
        if k == "BinaryOperator" and node.get("opcode") in ("+", "-"):
            left, right = tree.children(node)[:2]
            base = self.pvalue(left, scope, pre) if self._is_pointerish(left) else None
            other = right
            if base is None and node.get("opcode") == "+" and self._is_pointerish(right):
                base, other = self.pvalue(right, scope, pre), left
            if isinstance(base, PtrValue):
                return self.advance_value(base, self.expr(other, scope, pre), node.get("opcode") == "-")
        if k == "UnaryOperator" and node.get("opcode") == "&":
            target = peel(tree.children(node)[0])
            if tree.kind(target) == "ArraySubscriptExpr":
                base_node, index_node = subscript_parts(target)
                if self.dyn_of(base_node, scope) is not None:
                    base = self.pvalue(base_node, scope, pre)
                    assert isinstance(base, PtrValue)
                    return self.advance_value(base, self.expr(index_node, scope, pre), False)
        if k == "ConditionalOperator":
            cond_node, then_node, else_node = tree.children(node)[:3]
            elem = self.type_of(node).elem
            then = self.pvalue(then_node, scope, pre, elem)
            els = self.pvalue(else_node, scope, pre, elem)
            if then is None or els is None:
                return None
            cond = self.condition(cond_node, scope, pre)
            a = then if isinstance(then, PtrValue) else self.as_value(then, elem, node)
            b = els if isinstance(els, PtrValue) else self.as_value(els, elem, node)
            return PtrValue(K.Cond(cond, a.tag, b.tag, TAG), K.Cond(cond, a.off, b.off, OFFSET),
                            a.bases | b.bases)
        element = self.array_element_of(node, scope)
        if element is not None:
            return self.element_value(element[0], element[1], scope, pre)
        try:
            return self.pointer(node, scope)
        except Split as split:
            raise self.error(f"unsupported: pointer arithmetic over '{split.dyn.name}', which may "
                             "point into several arrays, in this form", node) from None

    def unbounded(self, node: Node) -> str:
        """Why pointer expression ``node`` has no array AutoSync can bound (for the error)."""
        inner = peel(node)
        while tree.kind(inner) in EXPLICIT_CASTS or tree.kind(inner) == "ImplicitCastExpr":
            if inner.get("castKind") == "IntegralToPointer" or not self._is_pointerish(tree.children(inner)[0]):
                return "it is made from an integer"
            inner = peel(tree.children(inner)[0])
        if tree.kind(inner) in ("ArraySubscriptExpr", "MemberExpr") or (
                tree.kind(inner) == "UnaryOperator" and inner.get("opcode") == "*"):
            return "it is read from memory"
        return "its array is not known statically"

    def is_value(self, node: Node, scope: Scope) -> bool:
        """Whether pointer expression ``node`` is a value (not one array on every path), read
        off its form without translating it."""
        node = peel(node)
        k = tree.kind(node)
        if k == "ConditionalOperator":
            return True
        if k == "DeclRefExpr" or (k == "UnaryOperator" and node.get("opcode") == "*"):
            return self.dyn_of(node, scope) is not None
        if k in EXPLICIT_CASTS or (k == "ImplicitCastExpr" and node.get("castKind") == "BitCast"):
            return self.is_value(tree.children(node)[0], scope)
        if k == "BinaryOperator" and node.get("opcode") in ("+", "-"):
            return any(self._is_pointerish(c) and self.is_value(c, scope) for c in tree.children(node)[:2])
        if k == "UnaryOperator" and node.get("opcode") == "&":
            target = peel(tree.children(node)[0])
            return tree.kind(target) == "ArraySubscriptExpr" and \
                self.dyn_of(subscript_parts(target)[0], scope) is not None
        return self.array_element_of(node, scope) is not None

    def condition(self, node: Node, scope: Scope, pre: list[K.Stmt]) -> K.Expr:
        """A memory-free condition: :mod:`kpl.frontend.exprs`."""
        raise NotImplementedError

    def _unit_of(self, value: PtrValue) -> int | None:
        units = {self._base_unit(n) for n in value.bases if n != 0}
        return units.pop() if len(units) == 1 else None

    def _base_unit(self, number: int) -> int:
        """Bytes one step of a pointer moves over base ``number``."""
        mem, view = self.points_to.base(number)
        return sizeof(view) or 1 if view is not None else 1

    def advance_value(self, v: PtrValue, k: K.Expr, backwards: bool) -> PtrValue:
        """``v ± k``: one step is one element, or ``sizeof`` the pointee over a byte view."""
        strides = {n: self._base_unit(n) for n in v.bases if n != 0}
        step: K.Expr = self.convert(k, OFFSET)
        if set(strides.values()) - {1}:
            chain: K.Expr = K.Const(1, OFFSET)
            for n, s in sorted(strides.items()):
                chain = K.Cond(K.Binary("==", v.tag, K.Const(n, TAG), K.BOOL), K.Const(s, OFFSET),
                               chain, OFFSET)
            step = K.Binary("*", step, chain, OFFSET)
        return PtrValue(v.tag, K.Binary("-" if backwards else "+", v.off, step, OFFSET), v.bases)

    # ------------------------------------------------------------------ variables

    def pointer_bound(self, ident: str) -> None:
        """Record where a pointer variable is bound: set again deeper inside a loop or branch,
        it is a value."""
        self.pointer_depth[ident] = self.control_depth

    def reassigned(self, ident: str, found: object, node: Node | None, scope: Scope, *,
                   force: bool = False) -> None:
        """A static pointer is set again (by assignment ``node``, or ``++``): set under
        control flow, or to a value, it becomes a value (the kernel is translated again with
        it as one).  ``force``: a null pointer dereferenced, a value whose base is null."""
        if not isinstance(found, (PointerBinding, UnboundPointer, UnknownPointer)):
            return
        deeper = force or self.control_depth > self.pointer_depth.get(ident, 0)
        if not deeper and node is not None and node.get("opcode") == "=":
            deeper = self.is_value(tree.children(node)[1], scope)
        if deeper:
            self.points_to.dynamic.add(ident)
            raise RetryTranslation(ident)

    def dyn_assignment(self, node: Node, dyn: DynPointer, scope: Scope) -> list[K.Stmt]:
        """``p = q``, ``p += k``, ``p -= k`` on a pointer value."""
        lhs, rhs = tree.children(node)[:2]
        op = node.get("opcode")
        pre: list[K.Stmt] = []
        value: PtrValue | PointerBinding | None
        if op == "=":
            value = self.pvalue(rhs, scope, pre, dyn.pointee)
        elif op in ("+=", "-="):
            value = self.advance_value(self.dyn_value(dyn), self.expr(rhs, scope, pre), op == "-=")
        else:
            value = None
        if value is None:
            self.hold_in_memory(rhs, scope=scope)
            raise self.error(f"unsupported: pointer '{dyn.name}' cannot be bounded to known arrays: "
                             f"{self.unbounded(rhs)}", node)
        return pre + self.assign_dyn(dyn, value, node)

    def dyn_step(self, dyn: DynPointer, backwards: bool, node: Node) -> list[K.Stmt]:
        """``p++`` / ``p--`` on a pointer value."""
        return self.assign_dyn(dyn, self.advance_value(self.dyn_value(dyn), K.Const(1, OFFSET),
                                                       backwards), node)

    def new_dyn(self, ident: str, name: str, pointee: K.CType, value: PtrValue | PointerBinding,
                out: list[K.Stmt]) -> DynPointer:
        """A pointer variable holding a value, initialised with ``value``."""
        v = value if isinstance(value, PtrValue) else self.as_value(value, pointee, None)
        bases = self.points_to.bases.setdefault(ident, set())
        bases.update(v.bases)
        tag = K.Var(self.unique(f"{name}.base"), TAG)
        off = K.Var(self.unique(f"{name}.off"), OFFSET)
        dyn = DynPointer(ident, name, pointee, tag, off)
        self.dyn_tags[tag.name] = dyn
        out.append(K.Decl(tag, v.tag, label=self.label()))
        out.append(K.Decl(off, v.off, label=self.label()))
        return dyn

    def assign_dyn(self, dyn: DynPointer, value: PtrValue | PointerBinding, node: Node) -> list[K.Stmt]:
        """``p = value``: the offset first (the value's offset may test ``p``'s tag)."""
        v = value if isinstance(value, PtrValue) else self.as_value(value, dyn.pointee, node)
        bases = self.points_to.bases.setdefault(dyn.ident, set())
        if not v.bases <= bases:
            bases.update(v.bases)
            raise RetryTranslation(dyn.name)
        return [K.Assign(dyn.off, v.off, label=self.label()),
                K.Assign(dyn.tag, v.tag, label=self.label())]

    # ------------------------------------------------------------------ held elsewhere

    def array_element_of(self, node: Node, scope: Scope) -> tuple[PointerArray, Node] | None:
        """``a[k]`` of an array of pointers: :mod:`kpl.frontend.held`."""
        raise NotImplementedError

    def element_value(self, arr: PointerArray, index_node: Node, scope: Scope,
                      pre: list[K.Stmt]) -> PtrValue:
        """The value of ``a[k]``: :mod:`kpl.frontend.held`."""
        raise NotImplementedError

    # ------------------------------------------------------------------ tests

    def dyn_null_test(self, dyn: DynPointer, negate: bool) -> K.Expr:
        return K.Binary("==" if negate else "!=", dyn.tag, K.Const(0, TAG), K.BOOL)

    def compare_pointers(self, op: str, left: Node, right: Node, scope: Scope,
                         pre: list[K.Stmt]) -> K.Expr | None:
        """``p == q`` / ``p != q`` (and ordering) where one side is a value or the two
        point into different arrays: bases and offsets compared (None: leave it to the
        static comparison of two offsets into one array)."""
        a, b = self.pvalue(left, scope, pre), self.pvalue(right, scope, pre)
        if a is None or b is None:
            return None
        if isinstance(a, PointerBinding) and isinstance(b, PointerBinding) and (
                a.mem == b.mem or op not in ("==", "!=")):
            return None
        va = a if isinstance(a, PtrValue) else self.as_value(a, None, left)
        vb = b if isinstance(b, PtrValue) else self.as_value(b, None, right)
        if op == "-":  # defined within one array only: the difference of the offsets
            return K.Binary("-", self.convert(va.off, K.LONG), self.convert(vb.off, K.LONG), K.LONG)
        if op in ("==", "!="):
            same: K.Expr = K.Binary("&&", K.Binary("==", va.tag, vb.tag, K.BOOL),
                                    K.Binary("==", va.off, vb.off, K.BOOL), K.BOOL)
            aliasing = self._may_alias(va, vb)
            if aliasing is not None:
                same = K.Binary("||", same, aliasing, K.BOOL)
            return same if op == "==" else K.Unary("!", same, K.BOOL)
        # ordering is defined only within one array: compare the offsets
        return K.Binary(op, va.off, vb.off, K.BOOL)

    def _may_alias(self, va: PtrValue, vb: PtrValue) -> K.Expr | None:
        """When ``va`` and ``vb`` may point into two different global arrays (parameters the
        host may pass overlapping), whether they are equal is unknown: an unconstrained
        condition (never a constant false, which would make ``__requires(p == q)``
        vacuous); None when that cannot happen."""
        def global_bases(v: PtrValue) -> set[int]:
            return {n for n in v.bases if n != 0 and self.points_to.base(n)[0].space == K.Space.GLOBAL}
        ga, gb = global_bases(va), global_bases(vb)
        if not ga or not gb or len(ga | gb) < 2:
            return None

        def among(tag: K.Expr, bases: set[int]) -> K.Expr:
            test: K.Expr | None = None
            for n in sorted(bases):
                hit = K.Binary("==", tag, K.Const(n, TAG), K.BOOL)
                test = hit if test is None else K.Binary("||", test, hit, K.BOOL)
            assert test is not None
            return test
        unknown = K.Call("__kpl_alias", (va.tag, va.off, vb.tag, vb.off), K.BOOL)
        return K.Binary("&&", K.Binary("&&", among(va.tag, ga), among(vb.tag, gb), K.BOOL),
                        K.Binary("&&", K.Binary("!=", va.tag, vb.tag, K.BOOL), unknown, K.BOOL), K.BOOL)

    # ------------------------------------------------------------------ splitting

    def _bases_of(self, split: Split) -> list[int]:
        return sorted(self.points_to.bases.get(split.dyn.ident, set()))

    def _null_check(self, dyn: DynPointer, node: Node) -> K.Assert:
        return K.Assert(self.dyn_null_test(dyn, False), kind="null", label=self.label(),
                        span=self.span_of(node), placeable=False, synthetic=True)

    def _arms(self, split: Split, scope: Scope, run: object) -> list[tuple[int, object]]:
        out: list[tuple[int, object]] = []
        home = split.caught_in(scope) or scope
        for n in self._bases_of(split):
            if n == 0:
                continue
            mem, view = self.points_to.base(n)
            home.rebind(split.ident, PointerBinding(mem, split.dyn.off, view))
            try:
                out.append((n, run()))  # type: ignore[operator]
            finally:
                home.rebind(split.ident, split.dyn)
        return out

    def split_expr(self, split: Split, node: Node, scope: Scope, pre: list[K.Stmt]) -> K.Expr:
        """``node`` read through a value: ``tag == 1 ? e_1 : tag == 2 ? e_2 : …`` when the
        arms are pure, else ``if`` arms storing into a temporary."""
        dyn = split.dyn
        bases = self._bases_of(split)
        if 0 in bases:
            pre.append(self._null_check(dyn, node))

        def one() -> tuple[K.Expr, list[K.Stmt]]:
            arm_pre: list[K.Stmt] = []
            return self.expr(node, scope, arm_pre), arm_pre

        arms = [(n, v) for n, v in self._arms(split, scope, one)]
        if not arms:
            return K.Const(0, self.type_of(node) if tree.qual_type(node) != "void" else K.INT)
        values = [(n, v[0], v[1]) for n, v in arms]  # type: ignore[index]
        typ = values[0][1].type
        for _, v, _ in values[1:]:
            typ = common_type(typ, v.type) if typ.kind in ("int", "float") and v.type.kind in ("int", "float") else typ
        pure = all(not p and not any(isinstance(x, K.Atomic) for x in K.walk_expr(v))
                   for _, v, p in values)
        if pure:
            result: K.Expr = self.convert(values[-1][1], typ)
            for n, v, _ in reversed(values[:-1]):
                result = K.Cond(K.Binary("==", dyn.tag, K.Const(n, TAG), K.BOOL),
                                self.convert(v, typ), result, typ)
            return result
        tmp = self.temp(typ, "via")
        pre.append(K.Decl(tmp, None, label=self.label(), placeable=False, synthetic=True))
        pre.extend(self._choice(dyn, [(n, p + [K.Assign(tmp, self.convert(v, typ), label=self.label())])
                                      for n, v, p in values], node))
        return tmp

    def split_statement(self, split: Split, node: Node, scope: Scope) -> list[K.Stmt]:
        """A leaf statement writing through a value: ``if (tag == 1) S_1 else if … S_n``."""
        if tree.kind(node) == "DeclStmt":
            raise split
        dyn = split.dyn
        out: list[K.Stmt] = []
        if 0 in self._bases_of(split):
            out.append(self._null_check(dyn, node))
        arms = self._arms(split, scope, lambda: self.statement(node, scope))
        if arms:
            out.extend(self._choice(dyn, arms, node))  # type: ignore[arg-type]
            out[-1].placeable, out[-1].synthetic = True, False  # the statement: a barrier may follow
        return out

    def _choice(self, dyn: DynPointer, arms: list[tuple[int, list[K.Stmt]]],
                node: Node) -> list[K.Stmt]:
        """``if (tag == n_1) arm_1 else if … else arm_last``: the last base needs no test
        (one base: its arm alone)."""
        span = self.span_of(node)
        for _, stmts in arms:
            for blk_stmt in stmts:
                for s in itertools.chain([blk_stmt], K.walk_stmts(K.Block([blk_stmt]))):
                    s.placeable, s.synthetic = False, True
                    s.span = s.span or span
        chain: list[K.Stmt] = arms[-1][1]
        for n, stmts in reversed(arms[:-1]):
            label = self.label()
            then = K.Block(stmts, label, self.label(), K.BlockSource(), placeable_start=False)
            els = K.Block(chain, self.label(), self.label(), K.BlockSource(), placeable_start=False)
            chain = [K.If(K.Binary("==", dyn.tag, K.Const(n, TAG), K.BOOL), then, els, label=label,
                          placeable=False, synthetic=True, span=span)]
        return chain

    # ------------------------------------------------------------------ loops

    def pointer_loop_facts(self, loop: K.Loop) -> None:
        """Houdini candidates for a loop that sets pointer values: each one's base is one of
        its bases, and two of them differ (double buffers).  Candidates only: Houdini keeps
        those that hold at entry and are preserved (papers/001 §5)."""
        stmts = list(K.walk_stmts(loop.body)) + list(loop.latch)
        tags: list[DynPointer] = []
        for s in stmts:
            if isinstance(s, K.Assign) and isinstance(s.target, K.Var) and s.target.name in self.dyn_tags:
                dyn = self.dyn_tags[s.target.name]
                if dyn not in tags:
                    tags.append(dyn)
        facts: list[K.Expr] = []
        for dyn in tags:
            bases = sorted(self.points_to.bases.get(dyn.ident, set()))
            if bases:
                member: K.Expr = K.Binary("==", dyn.tag, K.Const(bases[0], TAG), K.BOOL)
                for n in bases[1:]:
                    member = K.Binary("||", member, K.Binary("==", dyn.tag, K.Const(n, TAG), K.BOOL), K.BOOL)
                facts.append(member)
            facts.append(K.Binary("==", dyn.off, K.Const(0, OFFSET), K.BOOL))
        for a, b in itertools.combinations(tags, 2):
            facts.append(K.Binary("!=", a.tag, b.tag, K.BOOL))
        loop.body.stmts[:0] = [K.Annotation("__candidate_invariant", (f,), label=self.label(),
                                            placeable=False, synthetic=True, span=loop.span)
                               for f in facts]

    def pointer_assignment(self, node: Node, ident: str,
                           found: PointerBinding | UnboundPointer | UnknownPointer | DynPointer,
                           scope: Scope, home: Scope | None = None,
                           name: str | None = None) -> list[K.Stmt]:
        """``p = q + k`` / ``p += k``: a static pointer is rebound where the binding is the
        same on every path (straight-line code at the depth it was bound); set deeper inside
        a loop or branch, or to a value, it is a value (:mod:`kpl.frontend.pointers`)."""
        lhs, rhs = tree.children(node)[:2]
        name = name or (peel(lhs).get("referencedDecl") or {}).get("name", "?")
        op = node.get("opcode")
        if isinstance(found, DynPointer):
            return self.dyn_assignment(node, found, scope)
        self.reassigned(ident, found, node, scope)
        binding: PointerBinding | None
        if op == "=":
            binding = self.pointer(rhs, scope)
        elif op in ("+=", "-=") and isinstance(found, PointerBinding):
            binding = self._advance(found, self.expr_pure(rhs, scope), op == "-=", tree.qual_type(peel(lhs)))
        else:
            binding = None
        if binding is None and (op == "=" or isinstance(found, UnknownPointer)):
            # no known array: refused where it is used to reach memory, if it is
            self.hold_in_memory(rhs, scope=scope)
            why = self.unbounded(rhs) if op == "=" else found.why  # type: ignore[union-attr]
            (home or scope).rebind(ident, UnknownPointer(name, why))
            return []
        if binding is None:
            raise self.error(f"unsupported: assignment to pointer '{name}'", node)
        stable, stmts = self._stable(binding)
        (home or scope).rebind(ident, stable)
        return stmts

