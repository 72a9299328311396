"""Memory accesses: the ONE place where pointers, array elements, lvalues, loads and stores
are built from clang's expressions.

A pointer is resolved statically to ``(memory, element offset)`` (:class:`PointerBinding`);
an array element ``a[i][j]`` to ``(memory, flattened index)``.  A pointer cast that changes
the pointee's size (``(unsigned char *)words``, ``reinterpret_cast<float4 *>(floats)``,
pitched rows ``(T *)((char *)base + y * pitch)``) turns the binding into a BYTE VIEW: its
offset is then in bytes, and every access through it carries ``view`` (its type; width
``sizeof(view)``) with a byte offset as its index.  Accesses without a view keep element
indices; the oracles compare the two as byte ranges.

Why one piece of this size: every access of every construct is built here, so that the
memory model (element indices, byte views, pointer bindings) has one definition.
"""

from __future__ import annotations

import re

from kpl import ast as K
from kpl.ctypes import binary_type, common_type, invalid_operands, sizeof
from kpl.frontend import tree
from kpl.frontend.state import (
    Alias,
    Binding,
    DynPointer,
    LocalPointer,
    ObjectBinding,
    PointerBinding,
    ScalarMemory,
    Scope,
    Split,
    TranslatorBase,
    UnboundPointer,
    UnknownPointer,
)
from kpl.frontend.tree import Node

#: implicit casts that change neither the value nor what it designates
_TRANSPARENT_CASTS = {"NoOp", "LValueToRValue", "ArrayToPointerDecay", "FunctionToPointerDecay",
                      "BuiltinFnToFnPtr", "UncheckedDerivedToBase", "DerivedToBase",
                      "AddressSpaceConversion", "UserDefinedConversion", "ConstructorConversion"}
_WRAPPERS = {"ParenExpr", "ExprWithCleanups", "MaterializeTemporaryExpr", "CXXBindTemporaryExpr",
             "ConstantExpr", "CXXDefaultArgExpr", "CXXDefaultInitExpr", "FullExpr"}
#: explicit casts (any spelling): their target type is the node's type
EXPLICIT_CASTS = {"CStyleCastExpr", "CXXStaticCastExpr", "CXXReinterpretCastExpr",
                  "CXXConstCastExpr", "CXXFunctionalCastExpr", "CXXDynamicCastExpr",
                  "BuiltinBitCastExpr"}


def peel(node: Node) -> Node:
    """``node`` without the wrappers that do not change what it designates (parentheses,
    temporaries, substituted template arguments, no-op and lvalue-to-rvalue casts)."""
    while True:
        k = tree.kind(node)
        inner = tree.children(node)
        if k in _WRAPPERS and inner:
            node = inner[-1] if k != "ConstantExpr" else inner[0]
        elif k == "SubstNonTypeTemplateParmExpr" and inner:
            node = inner[-1]
        elif k == "ImplicitCastExpr" and node.get("castKind") in _TRANSPARENT_CASTS and inner:
            node = inner[0]
        else:
            return node


def decl_id(node: Node) -> str | None:
    """The declaration a (peeled) ``DeclRefExpr`` names."""
    node = peel(node)
    if tree.kind(node) != "DeclRefExpr":
        return None
    ref = node.get("referencedDecl") or {}
    return str(ref.get("id")) if ref.get("id") else None


def subscript_parts(node: Node) -> tuple[Node, Node]:
    """(base, index) of an ``ArraySubscriptExpr`` (``i[a]`` is ``a[i]``)."""
    a, b = tree.children(node)[:2]
    if tree.qual_type(peel(a)).rstrip().endswith("*") or "[" in tree.qual_type(peel(a)):
        return a, b
    if tree.qual_type(peel(b)).rstrip().endswith("*") or "[" in tree.qual_type(peel(b)):
        return b, a
    return a, b



def _product(dims: tuple[int | None, ...]) -> int:
    out = 1
    for d in dims:
        out *= d or 1
    return out


def subscript_shape(text: str) -> tuple[int | None, ...] | None:
    """The extents a subscript of an expression of C type ``text`` walks: ``float[4][64]`` →
    (4, 64), ``float (*)[64]`` → (None, 64), ``float *`` and ``float[]`` → (None,), a reference
    to an array as the array; None for anything else."""
    t = " ".join(text.replace("const", " ").replace("volatile", " ").replace("__restrict", " ").split())
    m = re.fullmatch(r"[\w:<>, ]+?\s*(\(\s*[*&]+\s*\))?\s*((?:\[\d*\])*)", t)
    if m is None:
        return (None,) if re.fullmatch(r"[\w:<>, ]+?\s*\*", t) else None
    dims: list[int | None] = [int(d) if d else None for d in re.findall(r"\[(\d*)\]", m.group(2))]
    if m.group(1) is not None and "*" in m.group(1):
        dims.insert(0, None)
    if not dims or any(d is None for d in dims[1:]):
        return None
    return tuple(dims)

class AccessTranslation(TranslatorBase):
    """Pointers, array elements, lvalues and assignments: how C names memory."""

    # ------------------------------------------------------------------ the memory model

    def location(self, mem: K.Memory, index: K.Expr, field: str | None = None,
                 view: K.CType | None = None) -> K.MemElem:
        """Element ``index`` of ``mem`` (its ``field`` for a vector/struct element); with a
        ``view``, the object of that type at byte offset ``index``."""
        if view is not None and field is not None:
            index, view = self._view_field(index, view, field)
            field = None
        return K.MemElem(mem, index, field, view)

    def load(self, mem: K.Memory, index: K.Expr, field: str | None = None,
             view: K.CType | None = None) -> K.Load:
        """A read of :meth:`location` ``(mem, index, field, view)``, typed by what it reads."""
        if view is not None:
            if field is not None:
                index, view = self._view_field(index, view, field)
            return K.Load(mem, index, view, None, view)
        typ = mem.elem if field is None else (mem.elem.elem or K.FLOAT)
        return K.Load(mem, index, typ, field)

    def atomic(self, name: str, at: PointerBinding, args: tuple[K.Expr, ...]) -> K.Atomic:
        """Atomic read-modify-write ``name`` of the element ``at`` points to."""
        return K.Atomic(name, at.mem, at.offset, args, at.view or at.mem.elem, at.view)

    def deref(self, at: PointerBinding, field: str | None = None) -> K.Load:
        """``*p`` / ``p->field``: a read of what ``at`` points to."""
        return self.load(at.mem, at.offset, field, at.view)

    def _view_field(self, offset: K.Expr, view: K.CType, field: str) -> tuple[K.Expr, K.CType]:
        comp = view.elem
        size = sizeof(comp) if comp is not None else None
        if view.kind != "vec" or comp is None or size is None or field not in view.fields \
                or sizeof(view) is None:
            raise self.error(f"unsupported: field '{field}' of a '{view}' reached through a "
                             "pointer cast (no byte layout for it)")
        return self._add(offset, K.Const(view.fields.index(field) * size, K.ULONG)), comp

    def _recast(self, base: PointerBinding, to: K.CType, node: Node) -> PointerBinding:
        """``(to *)base``: a cast changes only the pointee.  Scalars of the same size: nothing
        changes.  Otherwise a byte view, the offset scaled to bytes."""
        old = base.view or base.mem.elem
        if to.kind == "void" or to == old:
            return base
        new_size, old_size = sizeof(to), sizeof(old)
        if new_size is not None and new_size == old_size and "vec" not in (to.kind, old.kind):
            return base if base.view is None else PointerBinding(base.mem, base.offset, to)
        if old.kind == "void" and base.view is None and isinstance(base.offset, K.Const) \
                and base.offset.value == 0:
            return PointerBinding(base.mem, base.offset, None if to == base.mem.elem else to) \
                if to != base.mem.elem else PointerBinding(base.mem, base.offset)
        if new_size is None or old_size is None:
            raise self.error(f"unsupported: pointer cast from '{old} *' to '{to} *' (no byte "
                             "layout for one of them)", node)
        off = base.offset
        if base.view is None and old_size != 1 and isinstance(off, K.Const):
            off = K.Const(off.value * old_size, K.ULONG)
        elif base.view is None and old_size != 1:
            off = K.Binary("*", off, K.Const(old_size, K.ULONG), common_type(off.type, K.ULONG))
        return PointerBinding(base.mem, off, to)

    # ------------------------------------------------------------------ pointers

    def pointer(self, node: Node, scope: Scope) -> PointerBinding | None:
        """Resolve a pointer-valued expression to (array, offset), or None."""
        node = peel(node)
        k = tree.kind(node)
        if k in EXPLICIT_CASTS or (k == "ImplicitCastExpr" and node.get("castKind") == "BitCast"):
            inner = self.pointer(tree.children(node)[0], scope)
            if inner is None:
                return None
            to = self.type_of(node)
            if to.kind != "ptr" or to.elem is None:
                return inner
            return self._recast(inner, to.elem, node)
        if k == "DeclRefExpr":
            found = scope.lookup(decl_id(node) or "")
            if isinstance(found, PointerBinding):
                return found
            if isinstance(found, DynPointer):  # a value: the access is split over its bases
                raise Split(decl_id(node) or "", found)
            if isinstance(found, UnboundPointer):  # still null here: a value whose base is null
                self.reassigned(decl_id(node) or "", found, None, scope, force=True)
            if isinstance(found, UnknownPointer):
                raise self.error(f"unsupported: pointer '{found.name}' cannot be bounded to known "
                                 f"arrays: {found.why}", node)
            if isinstance(found, K.Memory):
                return PointerBinding(found, K.Const(0))
            if isinstance(found, ScalarMemory):  # a pointer held in memory: not known
                return None if found.mem.elem.kind == "ptr" else PointerBinding(found.mem, K.Const(0))
            if isinstance(found, Alias) and isinstance(found.target, K.MemElem) \
                    and "[" in tree.qual_type(node):
                return PointerBinding(found.target.mem, found.target.index, found.target.view)
            return None
        if k == "CXXThisExpr":
            this = self.this_stack[-1] if self.this_stack else None
            if isinstance(this, PointerBinding):
                return this
            if isinstance(this, Alias) and isinstance(this.target, K.MemElem):
                return PointerBinding(this.target.mem, this.target.index, this.target.view)
            return None
        if k == "BinaryOperator" and node.get("opcode") in ("+", "-"):
            left, right = tree.children(node)[:2]
            base = self.pointer(left, scope) if self._is_pointerish(left) else None
            other = right
            if base is None and node.get("opcode") == "+" and self._is_pointerish(right):
                base = self.pointer(right, scope)
                other = left
            if base is None:
                return None
            return self._advance(base, self.expr_pure(other, scope), node.get("opcode") == "-",
                                 tree.qual_type(peel(right if other is left else left)))
        if k == "UnaryOperator" and node.get("opcode") == "&":
            target = peel(tree.children(node)[0])
            tk = tree.kind(target)
            if tk == "DeclRefExpr":
                found = scope.lookup(decl_id(target) or "")
                if isinstance(found, ScalarMemory):
                    return PointerBinding(found.mem, K.Const(0))
                if isinstance(found, K.Memory):
                    return PointerBinding(found, K.Const(0))
                if isinstance(found, Alias) and isinstance(found.target, K.MemElem) \
                        and found.target.field is None:
                    return PointerBinding(found.target.mem, found.target.index, found.target.view)
                return None
            if tk == "ArraySubscriptExpr":
                mem, index, view = self.element(target, scope, [])
                return PointerBinding(mem, index, view)
            if tk == "UnaryOperator" and target.get("opcode") == "*":
                return self.pointer(tree.children(target)[0], scope)
            return None
        if k == "UnaryOperator" and node.get("opcode") == "*":
            return self.referent_binding(node, scope)
        if k in ("CallExpr", "CXXMemberCallExpr", "CXXOperatorCallExpr"):
            return self.pointer_call(node, scope)
        if k == "ArraySubscriptExpr" and "[" in tree.qual_type(node):
            # a row of a multi-dimensional array: `a[i]` of `float a[8][8]`
            mem, index, view = self.element(node, scope, [], partial=True)
            return PointerBinding(mem, index, view)
        if k == "ArraySubscriptExpr":  # `pp[0]` of a pointer to a pointer variable: `*pp`
            held = self.pointer_array_element(node, scope)  # or `a[k]` of an array of pointers
            return held if held is not None else self.referent_binding(node, scope)
        return None

    def dyn_assignment(self, node: Node, dyn: DynPointer, scope: Scope) -> list[K.Stmt]:
        """An assignment to a pointer value: :mod:`kpl.frontend.pointers`."""
        raise NotImplementedError

    def pointed_var(self, node: Node, scope: Scope) -> K.Var | None:
        """The local ``*p`` is: :mod:`kpl.frontend.pointers`."""
        raise NotImplementedError

    def pointer_array_element(self, node: Node, scope: Scope) -> PointerBinding | None:
        """``a[k]`` of a local array of pointers: :mod:`kpl.frontend.pointers`."""
        raise NotImplementedError

    def hold_in_memory(self, *nodes: Node | None, scope: Scope, found: object = None) -> None:
        """Local scalars a pointer is set to, into memory: :mod:`kpl.frontend.pointers`."""
        raise NotImplementedError

    def referent(self, node: Node, scope: Scope) -> tuple[Scope, str, str] | None:
        """The pointer variable ``*pp`` is: :mod:`kpl.frontend.pointers`."""
        raise NotImplementedError

    def referent_binding(self, node: Node, scope: Scope) -> PointerBinding | None:
        """The binding of the pointer variable ``*pp`` is: :mod:`kpl.frontend.pointers`."""
        raise NotImplementedError

    def reassigned(self, ident: str, found: object, node: Node | None, scope: Scope, *,
                   force: bool = False) -> None:
        """A static pointer set again: :mod:`kpl.frontend.pointers`."""
        raise NotImplementedError

    def pointer_call(self, node: Node, scope: Scope) -> PointerBinding | None:
        """A call that returns a pointer (``SharedMemory<T>()``): :mod:`kpl.frontend.calls`."""
        raise NotImplementedError

    def _is_pointerish(self, node: Node) -> bool:
        t = tree.qual_type(peel(node)).strip()
        return t.endswith("*") or t.endswith("]") or t.endswith("* const") or "*" in t.split("(")[0]

    def _stable(self, binding: PointerBinding) -> tuple[PointerBinding, list[K.Stmt]]:
        """Freeze a pointer's offset in a fresh variable: ``p = A + i; i++; p[0]`` must
        still mean ``A[old i]``."""
        if isinstance(binding.offset, K.Const):
            return binding, []
        tmp = self.temp(binding.offset.type, "off")
        return PointerBinding(binding.mem, tmp, binding.view), [K.Decl(tmp, binding.offset, label=self.label())]

    def _advance(self, base: PointerBinding, off: K.Expr, backwards: bool,
                 pointer_type: str = "") -> PointerBinding:
        """``base ± off`` in what the pointer points to: by elements for ``float *`` (even
        into a 2-D array: ``float *r = table[i]; r + 1``), by whole rows for the array itself
        or ``float (*)[64]`` (over a byte view, by ``sizeof`` of the view)."""
        dims = subscript_shape(pointer_type) or base.mem.dims
        stride = (sizeof(base.view) or 1) if base.view is not None else _product(dims[1:])
        if stride != 1:
            off = K.Binary("*", off, K.Const(stride), off.type)
        if backwards:
            off = K.Unary("-", off, off.type)
        return PointerBinding(base.mem, self._add(base.offset, off), base.view)

    def element(self, node: Node, scope: Scope, pre: list[K.Stmt], *,
                partial: bool = False) -> tuple[K.Memory, K.Expr, K.CType | None]:
        """``a[i][j]`` → (a, flattened index, None); ``p[i]`` over a byte view → (a, byte
        offset, view).  ``partial``: ``a[i]`` designates a row (an address, not a read)."""
        subscripts: list[Node] = []
        base = peel(node)
        while tree.kind(base) == "ArraySubscriptExpr":
            b, i = subscript_parts(base)
            subscripts.append(i)
            inner = peel(b)
            if tree.kind(inner) == "ArraySubscriptExpr" and "[" in tree.qual_type(inner):
                base = inner
                continue
            base = b
            break
        subscripts.reverse()
        binding = self.pointer(base, scope)
        if binding is None:
            name = (peel(base).get("referencedDecl") or {}).get("name") or tree.kind(peel(base))
            raise self.error(f"unsupported: '{name}' is not an array or a pointer into one", node)
        mem = binding.mem
        if binding.view is not None:
            if len(subscripts) != 1:
                raise self.error("unsupported: multi-dimensional indexing through a pointer cast",
                                 node)
            byte = self.expr(subscripts[0], scope, pre)
            size = sizeof(binding.view) or 1
            if size != 1:
                byte = K.Binary("*", byte, K.Const(size, K.ULONG), common_type(byte.type, K.ULONG))
            offset = self._add(binding.offset, byte)
            self.bounds_check(mem, offset, size, node, pre)
            return mem, offset, binding.view
        # the C type of the base says how far each subscript steps: `table[i][j]` by rows of
        # `table`, but `r[j]` of `float *r = table[i]` (or `float (&r)[64]`) by elements
        shape = subscript_shape(tree.qual_type(peel(base)))
        dims = mem.dims if shape is None or len(shape) < len(subscripts) else shape
        index: K.Expr | None = None
        for n, sub in enumerate(subscripts):
            value = self.expr(sub, scope, pre)
            if index is None:
                index = value
            else:
                extent = dims[n] if n < len(dims) else None
                if extent is None:
                    raise self.error(f"unsupported: unknown extent of dimension {n + 1} of "
                                     f"'{mem.name}'", node)
                index = K.Binary("+", K.Binary("*", index, K.Const(extent), index.type), value,
                                 common_type(index.type, value.type))
        assert index is not None
        stride = _product(dims[len(subscripts):])
        if stride != 1:
            index = K.Binary("*", index, K.Const(stride), index.type)
        offset = self._add(binding.offset, index)
        self.bounds_check(mem, offset, None, node, pre)
        return mem, offset, None

    def bounds_check(self, mem: K.Memory, offset: K.Expr, view_bytes: int | None, node: Node,
                     pre: list[K.Stmt]) -> None:
        """GPUVerify's ``--check-array-bounds`` (a header option): an access of an array of
        known size checks, before it, that its offset lies in the array as a whole (the
        flattened offset, as GPUVerify flattens arrays: ``L[-0][j]`` is in bounds), in
        elements, or in bytes through a byte view of ``view_bytes``.  An array of unknown
        size (a pointer parameter) has no bounds to check."""
        if "--check-array-bounds" not in self.unit.options or not mem.dims or None in mem.dims:
            return
        total = _product(mem.dims)
        if view_bytes is not None:
            elem = sizeof(mem.elem)
            if elem is None:
                return
            total = total * elem - view_bytes + 1  # the last byte offset a whole view fits at
        typ = offset.type
        within = K.Binary("&&", K.Binary("<=", K.Const(0, typ), offset, K.BOOL),
                          K.Binary("<", offset, K.Const(total, typ), K.BOOL), K.BOOL)
        pre.append(K.Assert(within, kind="bounds", label=self.label(), span=self.span_of(node),
                            placeable=False, synthetic=True))

    def _add(self, a: K.Expr, b: K.Expr) -> K.Expr:
        if isinstance(a, K.Const) and a.value == 0:
            return b
        if isinstance(b, K.Const) and b.value == 0:
            return a
        return K.Binary("+", a, b, common_type(a.type, b.type))

    # ------------------------------------------------------------------ lvalues

    def lvalue(self, node: Node, scope: Scope, pre: list[K.Stmt]) -> K.LValue:
        node = peel(node)
        k = tree.kind(node)
        if k == "DeclRefExpr":
            found = scope.lookup(decl_id(node) or "")
            if isinstance(found, K.Var):
                return found
            if isinstance(found, ScalarMemory):
                return self.location(found.mem, K.Const(0))
            if isinstance(found, Alias):
                return found.target
            name = (node.get("referencedDecl") or {}).get("name", "?")
            raise self.error(f"cannot assign to '{name}'", node)
        if k == "ArraySubscriptExpr":
            mem, index, view = self.element(node, scope, pre)
            return self.location(mem, index, None, view)
        if k == "UnaryOperator" and node.get("opcode") == "*":
            binding = self.pointer(tree.children(node)[0], scope)
            if binding is None:
                var = self.pointed_var(tree.children(node)[0], scope)
                if var is not None:
                    return var
                raise self.error("unsupported: dereference of an unknown pointer", node)
            return self.location(binding.mem, binding.offset, None, binding.view)
        if k == "MemberExpr":
            return self.member_lvalue(node, scope, pre)
        if k in ("CallExpr", "CXXMemberCallExpr", "CXXOperatorCallExpr") \
                and node.get("valueCategory") == "lvalue":
            return self.call_lvalue(node, scope, pre)
        if k in EXPLICIT_CASTS or k == "ImplicitCastExpr":
            return self.lvalue(tree.children(node)[0], scope, pre)
        if k == "CXXThisExpr" or (k == "UnaryOperator" and node.get("opcode") == "*"):
            this = self.this_stack[-1] if self.this_stack else None
            if isinstance(this, K.Var):
                return this
            if isinstance(this, Alias):
                return this.target
        raise self.error(f"unsupported assignment target: {k}", node)

    def call_lvalue(self, node: Node, scope: Scope, pre: list[K.Stmt]) -> K.LValue:
        """What a call returning a reference designates: :mod:`kpl.frontend.calls`."""
        raise NotImplementedError

    def member_lvalue(self, node: Node, scope: Scope, pre: list[K.Stmt], *,
                      reading: bool = False) -> K.LValue:
        """``s.f`` / ``p->f`` as an assignment target: :mod:`kpl.frontend.members`."""
        raise NotImplementedError

    def reference(self, node: Node, scope: Scope, pre: list[K.Stmt]) -> Binding:
        """What a C++ reference bound to ``node`` names: the very same lvalue, so that every
        use of the reference is an access to it.  A reference to a local is that local's
        variable; to a memory element, an :class:`Alias` of the element, its index frozen at
        binding time (``float &r = s[i]; i++;`` still names ``s[old i]``).  A non-lvalue
        (``const T &`` bound to ``a + b``) is a fresh temporary holding its value, as in C++."""
        inner = peel(node)
        k = tree.kind(inner)
        if k == "DeclRefExpr":
            found = scope.lookup(decl_id(inner) or "")
            if isinstance(found, (K.Var, Alias, ScalarMemory, PointerBinding, K.Memory, ObjectBinding)):
                return found  # (an object holding pointers: ``q.store(v)`` on a parameter ``q``)
        if k in ("DeclRefExpr", "ArraySubscriptExpr", "MemberExpr", "CXXThisExpr") or (
                k == "UnaryOperator" and inner.get("opcode") == "*") or (
                k in ("CallExpr", "CXXMemberCallExpr", "CXXOperatorCallExpr")
                and inner.get("valueCategory") == "lvalue"):
            if "[" in tree.qual_type(inner) and k != "DeclRefExpr":
                binding = self.pointer(inner, scope)
                if binding is not None:
                    return binding
            target = self.lvalue(inner, scope, pre)
            if isinstance(target, K.Var):
                return target
            if isinstance(target, K.MemElem) and not isinstance(target.index, K.Const):
                tmp = self.temp(target.index.type, "ref")
                pre.append(K.Decl(tmp, target.index, label=self.label()))
                target = self.location(target.mem, tmp, target.field, target.view)
            return Alias(target)
        value = self.expr(node, scope, pre)
        tmp = self.temp(value.type, "ref")
        pre.append(K.Decl(tmp, value, label=self.label()))
        return tmp

    def read_lvalue(self, target: K.LValue) -> K.Expr:
        if isinstance(target, K.Var):
            return target
        if isinstance(target, K.VarField):
            return K.Field(target.var, target.name, self._field_type(target.var.type, target.name))
        if target.view is not None:
            return K.Load(target.mem, target.index, target.view, None, target.view)
        return self.load(target.mem, target.index, target.field)

    def _field_type(self, typ: K.CType, name: str) -> K.CType:
        return typ.elem or K.FLOAT

    def lvalue_type(self, target: K.LValue) -> K.CType:
        if isinstance(target, K.Var):
            return target.type
        if isinstance(target, K.VarField):
            return self._field_type(target.var.type, target.name)
        if target.view is not None:
            return target.view
        if target.field is not None:
            return target.mem.elem.elem or K.FLOAT
        return target.mem.elem

    def binary(self, op: str, left: K.Expr, right: K.Expr, node: Node) -> K.Binary:
        """``left op right`` typed by C's rules; operands C does not allow are a user error."""
        why = invalid_operands(op, left.type, right.type)
        if why is not None:
            raise self.error(why, node)
        return K.Binary(op, left, right, binary_type(op, left.type, right.type))

    def convert(self, value: K.Expr, typ: K.CType) -> K.Expr:
        if typ.kind in ("ptr", "void", "vec") or value.type == typ:
            return value
        if isinstance(value, K.Const) and typ.kind == "int" and isinstance(value.value, int):
            return K.Const(value.value, typ)
        return K.Cast(typ, value)

    def assignment(self, node: Node, scope: Scope) -> list[K.Stmt]:
        """``a = b`` and ``a op= b`` (``BinaryOperator``/``CompoundAssignOperator``)."""
        out: list[K.Stmt] = []
        lhs, rhs = tree.children(node)[:2]
        op = str(node.get("opcode"))
        ident = decl_id(lhs) if tree.kind(peel(lhs)) == "DeclRefExpr" else None
        if ident is not None:
            found = scope.lookup(ident)
            if isinstance(found, (PointerBinding, UnboundPointer, UnknownPointer, DynPointer)):
                return self.pointer_assignment(node, ident, found, scope)
            if isinstance(found, LocalPointer):  # `p = &a; p = &b`: a and b into memory
                self.hold_in_memory(rhs, scope=scope, found=found)
        ref = self.referent(lhs, scope)
        if ref is not None:  # `*pp = q`: sets the pointer variable pp points to
            found = ref[0].lookup(ref[1])
            if isinstance(found, (PointerBinding, UnboundPointer, UnknownPointer, DynPointer)):
                return self.pointer_assignment(node, ref[1], found, scope, ref[0], ref[2])
        if tree.kind(peel(lhs)) == "InitListExpr":  # OpenCL's ``v.wy = u.zy`` (opencl.normalize)
            return self.swizzle_assignment(node, scope)
        if op == "=" and self._is_pointerish(lhs) and "[" not in tree.qual_type(peel(lhs)) \
                and not self.types.is_function_pointer(tree.qual_type(peel(lhs))):
            return self.store_pointer(node, scope)
        value = self.expr(rhs, scope, out)
        target = self.lvalue(lhs, scope, out)
        if op != "=":
            current = self.read_lvalue(target)
            # C computes `x op v` in the type clang names for it, then converts back
            compute = node.get("computeLHSType", {}).get("qualType")
            if compute:
                current = self.convert(current, self.ctype(str(compute), node))
            value = self.binary(op[:-1], current, value, node)
        value = self.convert(value, self.lvalue_type(target))
        self.check_writable(target, node)
        out.append(K.Assign(target, value, label=self.label()))
        return out

    def pointer_assignment(self, node: Node, ident: str,
                           found: PointerBinding | UnboundPointer | UnknownPointer | DynPointer,
                           scope: Scope, home: Scope | None = None, name: str | None = None) -> list[K.Stmt]:
        """``p = q + k`` / ``p += k``: :mod:`kpl.frontend.pointers`."""
        raise NotImplementedError

    def swizzle_assignment(self, node: Node, scope: Scope) -> list[K.Stmt]:
        """OpenCL's ``v.wy = u.zy``: :mod:`kpl.frontend.opencl_builtins`."""
        raise NotImplementedError

    def store_pointer(self, node: Node, scope: Scope) -> list[K.Stmt]:
        """``m = p`` into memory holding a pointer: :mod:`kpl.frontend.pointers`."""
        raise NotImplementedError

    def address_value(self, node: Node, scope: Scope, pre: list[K.Stmt], typ: K.CType) -> K.Expr | None:
        """A pointer as an integer: :mod:`kpl.frontend.pointers`."""
        raise NotImplementedError

    def unbounded(self, node: Node) -> str:
        """Why a pointer has no known array: :mod:`kpl.frontend.pointers`."""
        raise NotImplementedError

    def check_writable(self, target: K.LValue, node: Node) -> None:
        """Refuse a store to ``__constant__`` (or texture) memory: read-only for kernels."""
        if isinstance(target, K.MemElem) and target.mem.space in (K.Space.CONSTANT,
                                                                   K.Space.TEXTURE):
            raise self.error(f"write to {target.mem.space.value} memory '{target.mem.name}' "
                             "from device code (it is read-only for kernels)", node)
