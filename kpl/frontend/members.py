"""Struct and union members with a byte layout: ``s.a.b``, ``p->a``, ``arr[i].a.b``,
``this->v[k]`` in a method.

WHY: a struct in shared or global memory is bytes.  A member access is the bytes of that
member at its offset (kpl.ctypes lays structs out: base classes first, ``__align__``,
unions at offset 0, nested and anonymous members, array members), so it is built as a byte
view of the struct's array (:mod:`kpl.frontend.access`): two threads writing different members
of one struct do not race, writing a member and reading the whole struct (or an
overlapping union member) do.  A member of a thread-local struct VARIABLE is a component
of its value: the value's components are the struct's leaf paths (``pos.x``), so a nested
member is the vector of its leaves.  A union variable's members overlap, so reading one is
an opaque function of all of them (any value the bytes may hold), never a stale member.

Structs whose layout is not known (a member of an unknown size) keep named fields.

Why one piece of this size: every member access (read, store, address, through an object)
resolves one path the same way; split, the paths could disagree.
"""

from __future__ import annotations

from dataclasses import dataclass

from kpl import ast as K
from kpl.ctypes import member, sizeof
from kpl.frontend import tree
from kpl.frontend.access import decl_id, peel
from kpl.frontend.exprs import ExprsTranslation
from kpl.frontend.state import Alias, Binding, ObjectBinding, PointerBinding, ScalarMemory, Scope
from kpl.frontend.tree import Node


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
    """Is member ``name`` of ``t`` reached through an anonymous union?  The storage unit of
    bit-fields (kpl.frontend.types) is not one: its members are separate values."""
    for n, m in t.parts:
        if n or not m.parts:
            continue
        if m.union and not m.name.startswith("bits:") and member(m, name) is not None:
            return True
        if not m.union and _in_anonymous_union(m, name):
            return True
    return False


class MembersTranslation(ExprsTranslation):
    """Member accesses (module docstring)."""

    def member_ref(self, node: Node, scope: Scope, pre: list[K.Stmt]) -> MemberRef | None:
        """Resolve the ``MemberExpr`` ``node`` to a member of a laid-out struct, or None (no
        layout: the named-field model of :meth:`named_member`)."""
        names: list[str] = []
        local: list[K.Stmt] = []  # side effects of the base, kept only when this succeeds
        base = node
        while tree.kind(base) == "MemberExpr" and not base.get("isArrow"):
            names.append(str(base.get("name", "")))
            base = peel(tree.children(base)[0])
        ref = MemberRef(K.VOID, "", K.VOID, 0)
        through: PointerBinding | K.Var | Alias | ObjectBinding | None = None
        if tree.kind(base) == "MemberExpr":  # `p->a.b`, `this->v`
            names.append(str(base.get("name", "")))
            inner = peel(tree.children(base)[0])
            if tree.kind(inner) == "CXXThisExpr":
                through = self.this_stack[-1] if self.this_stack else None
            else:
                through = self.pointer(inner, scope)
            if through is None:
                return None
        else:
            k = tree.kind(base)
            if k == "DeclRefExpr":
                found = scope.lookup(decl_id(base) or "")
                if isinstance(found, (K.Var, Alias, ObjectBinding)):
                    through = found
                elif isinstance(found, ScalarMemory):
                    through = PointerBinding(found.mem, K.Const(0))
                    ref.index = K.Const(0)
                else:
                    return None
            elif k == "ArraySubscriptExpr" or (k == "UnaryOperator" and base.get("opcode") == "*"):
                target = self.lvalue(base, scope, local)
                if isinstance(target, K.MemElem) and target.field is None:
                    through = Alias(target)
                elif isinstance(target, K.Var):
                    through = target
                else:
                    return None
            elif k == "CXXThisExpr":
                return None
            else:
                value = self.expr(base, scope, local)
                ref.value, ref.struct = value, value.type
        if isinstance(through, ObjectBinding):  # `temp.data` of an object holding `T &temp`
            names.reverse()
            held = through.fields.get(names[0])
            if held is None or len(names) == 1:
                return None  # a whole member of the object: object_member()
            through = self._through(held)
            if through is None:
                return None
            names = list(reversed(names[1:]))
        if isinstance(through, Alias):
            target = through.target
            if isinstance(target, K.Var):
                through = target
            elif isinstance(target, K.MemElem) and target.field is None:
                ref.mem, ref.at = target.mem, target.index
                ref.struct = target.view or target.mem.elem
                ref.index = None if target.view is not None else target.index
            else:
                return None
        if isinstance(through, K.Var):
            ref.var, ref.struct = through, through.type
        elif isinstance(through, PointerBinding):
            ref.mem, ref.at = through.mem, through.offset
            ref.struct = through.view or through.mem.elem
            ref.index = None if through.view is not None else through.offset
        if not has_layout(ref.struct):
            return None
        names.reverse()
        ref.path = ".".join(n for n in names if n)  # anonymous members have no name
        hit = member(ref.struct, ref.path)
        if hit is None:
            raise self.error(f"'{ref.struct}' has no member '{ref.path}'", node)
        ref.offset, ref.typ = hit
        if ref.mem is not None and ref.index is not None:
            assert ref.at is not None
            ref.at = self._scaled_offset(ref.at, sizeof(ref.struct) or 1)
        pre.extend(local)
        return ref

    @staticmethod
    def _through(held: Binding) -> PointerBinding | K.Var | Alias | None:
        """A member of an object as the struct the next member is taken from."""
        if isinstance(held, (K.Var, Alias, PointerBinding)):
            return held
        if isinstance(held, ScalarMemory):
            return PointerBinding(held.mem, K.Const(0))
        if isinstance(held, K.Memory):
            return PointerBinding(held, K.Const(0))
        return None

    def object_member(self, node: Node, scope: Scope) -> Binding | None:
        """What member ``node`` (``this->temp``, ``r.temp``) of an :class:`ObjectBinding`
        stands for, or None when ``node`` is no such member."""
        node = peel(node)
        if tree.kind(node) != "MemberExpr":
            return None
        base = peel(tree.children(node)[0])
        root: Binding | PointerBinding | K.Var | Alias | ObjectBinding | None = None
        if tree.kind(base) == "CXXThisExpr":
            root = self.this_stack[-1] if self.this_stack else None
        elif tree.kind(base) == "DeclRefExpr":
            root = scope.lookup(decl_id(base) or "")
        elif tree.kind(base) == "MemberExpr":
            root = self.object_member(base, scope)
        if isinstance(root, ObjectBinding):
            return root.fields.get(str(node.get("name", "")))
        return None

    def _pointer_member_assignment(self, node: Node, scope: Scope) -> list[K.Stmt] | None:
        """``s.p = q`` on a pointer member of an object: :mod:`kpl.frontend.objects`."""
        raise NotImplementedError

    def reference(self, node: Node, scope: Scope, pre: list[K.Stmt]) -> Binding:
        held = self.object_member(node, scope)
        return held if held is not None else super().reference(node, scope, pre)

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
                return self.convert(self.load(ref.mem, ref.index, ref.path), ref.typ)
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
        return self.convert(K.Field(base, path, K.FLOAT), typ)

    def ref_lvalue(self, ref: MemberRef, node: Node) -> K.LValue:
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

    def expr_MemberExpr(self, node: Node, scope: Scope, pre: list[K.Stmt]) -> K.Expr:
        base = tree.children(node)[0]
        builtin = self.builtin_var(base)
        if builtin is not None and builtin != "warpSize":
            return K.Builtin(builtin, str(node.get("name", "")), K.UINT)
        static = self.index.get(node.get("referencedMemberDecl"))
        if static is not None and tree.kind(static) == "VarDecl":  # `p.size`, a static member
            value = self.constant_var(static)
            if value is None:
                raise self.error(f"unsupported: static member '{node.get('name')}' that is not a "
                                 "constant", node)
            return value
        held = self.object_member(node, scope)
        if isinstance(held, K.Var):
            return held
        if isinstance(held, Alias):
            return self.read_lvalue(held.target)
        if isinstance(held, ScalarMemory):
            return self.load(held.mem, K.Const(0))
        if held is not None:
            raise self.error(f"unsupported: member '{node.get('name')}' (an array or pointer) used "
                             "as a value", node)
        ref = self.member_ref(node, scope, pre)
        if ref is not None:
            return self.member_read(ref)
        return self.read_lvalue(self.named_member(node, scope, pre, reading=True))

    def member_lvalue(self, node: Node, scope: Scope, pre: list[K.Stmt], *,
                      reading: bool = False) -> K.LValue:
        held = self.object_member(node, scope)
        if isinstance(held, K.Var):
            return held
        if isinstance(held, Alias):
            return held.target
        if isinstance(held, ScalarMemory):
            return self.location(held.mem, K.Const(0))
        ref = self.member_ref(node, scope, pre)
        if ref is not None:
            return self.ref_lvalue(ref, node)
        return self.named_member(node, scope, pre, reading=reading)

    def named_member(self, node: Node, scope: Scope, pre: list[K.Stmt], *,
                     reading: bool = False) -> K.LValue:
        """A member of a struct without a byte layout (a vector type's component ``v.x``):
        the named component of a local value or of a memory element."""
        names: list[str] = []
        base = node
        while tree.kind(base) == "MemberExpr" and not base.get("isArrow"):
            names.append(str(base.get("name", "")))
            base = peel(tree.children(base)[0])
        path = ".".join(n for n in reversed(names) if n)
        if tree.kind(base) == "MemberExpr":  # `p->x`
            path = ".".join(n for n in [str(base.get("name", "")), path] if n)
            inner = peel(tree.children(base)[0])
            this = self.this_stack[-1] if self.this_stack and tree.kind(inner) == "CXXThisExpr" else None
            binding = this if this is not None else self.pointer(inner, scope)
            if isinstance(binding, PointerBinding):
                return self.location(binding.mem, binding.offset, path, binding.view)
            if isinstance(binding, K.Var):
                return K.VarField(binding, path)
            if isinstance(binding, Alias):
                return self._field_of(binding.target, path, node)
            raise self.error("unsupported: '->' on an unknown pointer", node)
        k = tree.kind(base)
        if k == "DeclRefExpr":
            found = scope.lookup(decl_id(base) or "")
            if isinstance(found, K.Var):
                return K.VarField(found, path)
            if isinstance(found, ScalarMemory):
                return self.location(found.mem, K.Const(0), path)
            if isinstance(found, Alias):
                return self._field_of(found.target, path, node)
        if k == "ArraySubscriptExpr" or (k == "UnaryOperator" and base.get("opcode") == "*"):
            return self._field_of(self.lvalue(base, scope, pre), path, node)
        if reading:
            value = self.expr(base, scope, pre)
            tmp = self.temp(value.type, "val")
            pre.append(K.Decl(tmp, value, label=self.label(), placeable=False, synthetic=True))
            return K.VarField(tmp, path)
        raise self.error("unsupported: nested field assignment", node)

    def _field_of(self, target: K.LValue, path: str, node: Node) -> K.LValue:
        if isinstance(target, K.MemElem) and target.field is None:
            return self.location(target.mem, target.index, path, target.view)
        if isinstance(target, K.Var):
            return K.VarField(target, path)
        raise self.error("unsupported: nested field assignment", node)

    def pointer(self, node: Node, scope: Scope) -> PointerBinding | None:
        """An array member of a struct in memory (``s[i].v``, decaying to a pointer to its
        first element): a byte view of the element type at the member's offset; the
        address of a member (``&s[i].n``, for an atomic) a byte view of the member."""
        inner = peel(node)
        held = self.object_member(inner, scope)
        if isinstance(held, PointerBinding):
            return held
        if isinstance(held, K.Memory):
            return PointerBinding(held, K.Const(0))
        if isinstance(held, Alias) and isinstance(held.target, K.MemElem) and "[" in tree.qual_type(inner):
            return PointerBinding(held.target.mem, held.target.index, held.target.view)
        if tree.kind(inner) == "UnaryOperator" and inner.get("opcode") == "&" \
                and tree.kind(peel(tree.children(inner)[0])) == "MemberExpr":
            pre: list[K.Stmt] = []
            ref = self.member_ref(peel(tree.children(inner)[0]), scope, pre)
            if ref is not None and ref.mem is not None and not pre:
                assert ref.at is not None
                return PointerBinding(ref.mem, self._add(ref.at, K.Const(ref.offset, K.ULONG)),
                                      ref.typ)
        if tree.kind(inner) == "UnaryOperator" and inner.get("opcode") == "&" \
                and tree.kind(peel(tree.children(inner)[0])) == "MemberExpr":
            # `&c[i].x` of a vector type: the component's bytes
            local: list[K.Stmt] = []
            target = self.named_member(peel(tree.children(inner)[0]), scope, local)
            if isinstance(target, K.MemElem) and target.field is not None and not local:
                elem = target.view or target.mem.elem
                if elem.kind == "vec" and elem.elem is not None and target.field in elem.fields:
                    at = target.index if target.view is not None else \
                        self._scaled_offset(target.index, sizeof(elem) or 1)
                    return self._component_view(target.mem, at, elem, target.field)
        if tree.kind(inner) == "MemberExpr":
            pre = []
            ref = self.member_ref(inner, scope, pre)
            if ref is not None and ref.mem is not None and ref.typ.name.endswith("]") \
                    and ref.typ.parts and not pre:
                assert ref.at is not None
                elem = ref.typ.parts[0][1]
                return PointerBinding(ref.mem, self._add(ref.at, K.Const(ref.offset, K.ULONG)),
                                      elem)
        return super().pointer(node, scope)

    def _component_view(self, mem: K.Memory, at: K.Expr, vec: K.CType, field: str) -> PointerBinding:
        """A pointer to component ``field`` of the vector at byte ``at`` of ``mem``."""
        comp = vec.elem or K.FLOAT
        offset = vec.fields.index(field) * (sizeof(comp) or 4)
        return PointerBinding(mem, self._add(at, K.Const(offset, K.ULONG)), comp)

    def read_lvalue(self, target: K.LValue) -> K.Expr:
        if isinstance(target, K.VarField) and has_layout(target.var.type):
            hit = member(target.var.type, target.name)
            if hit is not None:
                return self.component(target.var, target.var.type, target.name, hit[1])
        return super().read_lvalue(target)

    def lvalue_type(self, target: K.LValue) -> K.CType:
        if isinstance(target, K.VarField) and has_layout(target.var.type):
            hit = member(target.var.type, target.name)
            if hit is not None:
                return hit[1]
        return super().lvalue_type(target)

    def assignment(self, node: Node, scope: Scope) -> list[K.Stmt]:
        """A store to an aggregate member of a local struct variable (``me.pos = v``)
        stores each of its leaves; a pointer member of an object set again is rebound."""
        rebound = self._pointer_member_assignment(node, scope)
        if rebound is not None:
            return rebound
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
