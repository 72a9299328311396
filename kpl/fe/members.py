"""Struct and union members with a byte layout: ``s.a.b``, ``p->a``, ``arr[i].a.b``.

WHY: a struct in shared or global memory is bytes.  A member access is the bytes of that
member at its offset (kpl.ctypes lays structs out: base classes first, ``__align__``,
unions at offset 0, nested and anonymous members, array members), so it is built as a byte
view of the struct's array (:mod:`kpl.fe.access`): two threads writing different members
of one struct do not race, writing a member and reading the whole struct (or an
overlapping union member) do.  A member of a thread-local struct VARIABLE is a component
of its value: the value's components are the struct's leaf paths (``pos.x``), so a nested
member is the vector of its leaves.  A union variable's members overlap, so reading one is
an opaque function of all of them (any value the bytes may hold), never a stale member.

Structs whose layout is not known (a member of an unknown size) keep the named-field model
of :mod:`kpl.fe.access`.
"""

from __future__ import annotations

from dataclasses import dataclass

from pycparser import c_ast

from kpl import ast as K
from kpl.ctypes import member, sizeof
from kpl.fe.access import AccessLowering
from kpl.fe.base import Alias, PointerBinding, ScalarMemory, Scope


@dataclass
class MemberRef:
    """Member ``path`` (type ``typ``, ``offset`` bytes into the struct) of one struct."""

    struct: K.CType
    path: str
    typ: K.CType
    offset: int
    var: K.Var | None = None  # of a local struct variable
    value: K.Expr | None = None  # of a struct value (a call's result)
    mem: K.Memory | None = None  # of a struct in this array ...
    at: K.Expr | None = None  # ... at this byte offset
    index: K.Expr | None = None  # ... which is this element (None: through a byte view)


def has_layout(t: K.CType) -> bool:
    return bool(t.parts) and sizeof(t) is not None


def is_aggregate(t: K.CType) -> bool:
    return t.kind == "vec"


def through_union(t: K.CType, path: str) -> bool:
    """Does ``path`` of struct ``t`` go through a union (its own or a nested one)?"""
    if t.union:
        return True
    names = path.split(".")
    cur = t
    for n in range(len(names)):
        if _in_anonymous_union(cur, names[n]):
            return True
        hit = member(cur, names[n])
        if hit is None:
            return False
        cur = hit[1]
        if cur.union and n < len(names) - 1:
            return True
    return False


def _in_anonymous_union(t: K.CType, name: str) -> bool:
    """Is member ``name`` of ``t`` reached through an anonymous union (``union { int i;
    float f; };``)?  The storage unit of bit-fields (kpl.fe.types) is not one: its
    members are separate values."""
    for n, m in t.parts:
        if n or not m.parts:
            continue
        if m.union and not m.name.startswith("bits:") and member(m, name) is not None:
            return True
        if not m.union and _in_anonymous_union(m, name):
            return True
    return False


class MembersLowering(AccessLowering):
    """Member accesses of laid-out structs (module docstring)."""

    def member_ref(self, node: c_ast.StructRef, scope: Scope,
                   pre: list[K.Stmt]) -> MemberRef | None:
        """Resolve ``node`` to a member of a laid-out struct, or None (no layout: the
        caller's named-field model)."""
        names: list[str] = []
        local: list[K.Stmt] = []  # side effects of the base, kept only when this succeeds
        base: c_ast.Node = node
        while isinstance(base, c_ast.StructRef) and base.type == ".":
            names.append(base.field.name)
            base = base.name
        ref = MemberRef(K.VOID, "", K.VOID, 0)
        if isinstance(base, c_ast.StructRef):  # `p->a.b`
            names.append(base.field.name)
            binding = self.pointer(base.name, scope)
            if binding is None:
                return None
            ref.mem, ref.at, view = binding.mem, binding.offset, binding.view
            ref.struct = view or binding.mem.elem
            ref.index = None if view is not None else binding.offset
        elif isinstance(base, c_ast.ArrayRef) or (isinstance(base, c_ast.UnaryOp)
                                                  and base.op == "*"):
            target = self.lvalue(base, scope, local)
            if not isinstance(target, K.MemElem) or target.field is not None:
                return None
            ref.mem, ref.at = target.mem, target.index
            ref.struct = target.view or target.mem.elem
            ref.index = None if target.view is not None else target.index
        elif isinstance(base, c_ast.ID):
            found = scope.lookup(base.name)
            if isinstance(found, K.Var):
                ref.var, ref.struct = found, found.type
            elif isinstance(found, ScalarMemory):
                ref.mem, ref.at, ref.index, ref.struct = found.mem, K.Const(0), K.Const(0), \
                    found.mem.elem
            elif (isinstance(found, Alias) and isinstance(found.target, K.MemElem)
                  and found.target.field is None):
                t = found.target
                ref.mem, ref.at, ref.struct = t.mem, t.index, t.view or t.mem.elem
                ref.index = None if t.view is not None else t.index
            else:
                return None
        else:
            value = self.expr(base, scope, local)
            ref.value, ref.struct = value, value.type
        if not has_layout(ref.struct):
            return None
        names.reverse()
        ref.path = ".".join(names)
        hit = member(ref.struct, ref.path)
        if hit is None:
            raise self.error(f"'{ref.struct}' has no member '{ref.path}'", node)
        ref.offset, ref.typ = hit
        if ref.mem is not None and ref.index is not None:
            assert ref.at is not None
            ref.at = self._scaled_offset(ref.at, sizeof(ref.struct) or 1)
        pre.extend(local)
        return ref

    def _scaled_offset(self, index: K.Expr, size: int) -> K.Expr:
        if size == 1:
            return index
        if isinstance(index, K.Const):
            return K.Const(int(index.value) * size, K.ULONG)
        return K.Binary("*", index, K.Const(size, K.ULONG), K.ULONG if index.type.bits <= 64
                        else index.type)

    def _leaf_local(self, ref: MemberRef) -> bool:
        """A scalar member of an element of a thread-local/read-only array: kept as a named
        component (values modelled), not a byte view."""
        assert ref.mem is not None
        return (not ref.mem.can_race and ref.index is not None and not is_aggregate(ref.typ)
                and not through_union(ref.struct, ref.path))

    def member_read(self, ref: MemberRef) -> K.Expr:
        if ref.mem is not None:
            assert ref.at is not None
            if self._leaf_local(ref):
                assert ref.index is not None
                return self._convert(self.load(ref.mem, ref.index, ref.path), ref.typ)
            off = self._add(ref.at, K.Const(ref.offset, K.ULONG))
            return K.Load(ref.mem, off, ref.typ, None, ref.typ)
        base = ref.var if ref.var is not None else ref.value
        assert base is not None
        return self.component(base, ref.struct, ref.path, ref.typ)

    def component(self, base: K.Expr, struct: K.CType, path: str, typ: K.CType) -> K.Expr:
        """Member ``path`` of the struct value ``base``: a leaf component, or the vector of
        the leaves of an aggregate member; through a union, any value of its bytes."""
        if through_union(struct, path):
            leaves = tuple(K.Field(base, f, K.FLOAT) for f in struct.fields)
            return K.Call("__kpl_union_bits", leaves, typ)
        if is_aggregate(typ):
            return K.VecInit(typ, tuple(K.Field(base, f"{path}.{f}", K.FLOAT)
                                        for f in typ.fields))
        return self._convert(K.Field(base, path, K.FLOAT), typ)

    def member_lvalue(self, ref: MemberRef, node: c_ast.Node) -> K.LValue:
        if ref.mem is not None:
            assert ref.at is not None
            if self._leaf_local(ref):
                assert ref.index is not None
                return self.location(ref.mem, ref.index, ref.path)
            return K.MemElem(ref.mem, self._add(ref.at, K.Const(ref.offset, K.ULONG)), None,
                             ref.typ)
        if ref.var is None:
            raise self.error("cannot assign to a member of a temporary", node)
        return K.VarField(ref.var, ref.path)

    # ------------------------------------------------------------------ the access hooks

    def pointer(self, node: c_ast.Node, scope: Scope) -> PointerBinding | None:
        """An array member of a struct in memory (``s[i].v``, decaying to a pointer to its
        first element): a byte view of the element type at the member's offset; the
        address of a member (``&s[i].n``, for an atomic) a byte view of the member."""
        if isinstance(node, c_ast.UnaryOp) and node.op == "&" \
                and isinstance(node.expr, c_ast.StructRef):
            pre: list[K.Stmt] = []
            ref = self.member_ref(node.expr, scope, pre)
            if ref is not None and ref.mem is not None and not pre:
                assert ref.at is not None
                return PointerBinding(ref.mem, self._add(ref.at, K.Const(ref.offset, K.ULONG)),
                                      ref.typ)
        if isinstance(node, c_ast.StructRef):
            pre = []
            ref = self.member_ref(node, scope, pre)
            if ref is not None and ref.mem is not None and ref.typ.name.endswith("]") \
                    and ref.typ.parts and not pre:
                assert ref.at is not None
                elem = ref.typ.parts[0][1]
                return PointerBinding(ref.mem, self._add(ref.at, K.Const(ref.offset, K.ULONG)),
                                      elem)
        return super().pointer(node, scope)

    def lvalue(self, node: c_ast.Node, scope: Scope, pre: list[K.Stmt]) -> K.LValue:
        if isinstance(node, c_ast.StructRef):
            ref = self.member_ref(node, scope, pre)
            if ref is not None:
                return self.member_lvalue(ref, node)
        return super().lvalue(node, scope, pre)

    def read_lvalue(self, target: K.LValue) -> K.Expr:
        if isinstance(target, K.VarField) and has_layout(target.var.type):
            hit = member(target.var.type, target.name)
            if hit is not None:
                return self.component(target.var, target.var.type, target.name, hit[1])
        return super().read_lvalue(target)

    def _lvalue_type(self, target: K.LValue) -> K.CType:
        if isinstance(target, K.VarField) and has_layout(target.var.type):
            hit = member(target.var.type, target.name)
            if hit is not None and is_aggregate(hit[1]):
                return hit[1]
        return super()._lvalue_type(target)

    def assignment(self, node: c_ast.Assignment, scope: Scope) -> list[K.Stmt]:
        """As :meth:`AccessLowering.assignment`; a store to an aggregate member of a local
        struct variable (``me.pos = v``) stores each of its leaves."""
        out = super().assignment(node, scope)
        last = out[-1] if out else None
        if not (isinstance(last, K.Assign) and isinstance(last.target, K.VarField)
                and has_layout(last.target.var.type)):
            return out
        var, path = last.target.var, last.target.name
        hit = member(var.type, path)
        if hit is None or not is_aggregate(hit[1]):
            return out
        out.pop()
        value = last.value
        if not isinstance(value, K.Var):
            tmp = self.temp(hit[1], "agg")
            out.append(K.Decl(tmp, value, label=self.label()))
            value = tmp
        for f in hit[1].fields:
            out.append(K.Assign(K.VarField(var, f"{path}.{f}"), K.Field(value, f, K.FLOAT),
                                label=self.label()))
        return out
