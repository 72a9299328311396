"""Memory accesses: the ONE place where pointers, array elements, lvalues, loads and stores
are built.

A pointer is resolved statically to ``(memory, element offset)`` (:class:`PointerBinding`);
an array element ``a[i][j]`` to ``(memory, flattened index)``.  A pointer cast that changes
the pointee's size (``(unsigned char *)words``, ``(float4 *)floats``, pitched rows
``(T *)((char *)base + y * pitch)``) turns the binding into a BYTE VIEW: its offset is then
in bytes, and every access through it carries ``view`` (its type; width ``sizeof(view)``)
with a byte offset as its index.  Accesses without a view keep element indices, so kernels
that never cast are lowered exactly as before; the oracles compare the two as byte ranges.
"""

from __future__ import annotations

from pycparser import c_ast

from kpl import ast as K
from kpl.ctypes import binary_type, common_type, invalid_operands, sizeof
from kpl.fe.base import Alias, Binding, PointerBinding, ScalarMemory, Scope, UnboundPointer
from kpl.fe.types import TypesLowering


class AccessLowering(TypesLowering):
    """Pointers, array elements, lvalues and assignments: how C names memory."""

    # ------------------------------------------------------------------ the memory model
    # Every KPL access to a memory is built by the three methods below; a different memory
    # model (e.g. byte offset + width instead of element index + field) changes only them
    # and the index arithmetic of `element`/`_advance`.

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
        """Component ``field`` of the vector at byte ``offset``: its own byte offset and type."""
        comp = view.elem
        size = sizeof(comp) if comp is not None else None
        if view.kind != "vec" or comp is None or size is None or field not in view.fields \
                or sizeof(view) is None:
            raise self.error(f"unsupported: field '{field}' of a '{view}' reached through a "
                             "pointer cast (no byte layout for it)")
        return self._add(offset, K.Const(view.fields.index(field) * size, K.ULONG)), comp

    def _recast(self, base: PointerBinding, to: K.CType, node: c_ast.Node) -> PointerBinding:
        """``(to *)base``: a cast changes only the pointee.  Scalars of the same size: nothing
        changes (the element grid is the same).  Otherwise (another size, or a vector view
        such as ``uchar4`` over ``unsigned int`` whose components are bytes): a byte view,
        the offset scaled to bytes."""
        old = base.view or base.mem.elem
        if to.kind == "void" or to == old:
            return base
        new_size, old_size = sizeof(to), sizeof(old)
        if new_size is not None and new_size == old_size and "vec" not in (to.kind, old.kind):
            # `(int *)floats`: the same element grid
            return base if base.view is None else PointerBinding(base.mem, base.offset, to)
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

    def pointer(self, node: c_ast.Node, scope: Scope) -> PointerBinding | None:
        """Resolve a pointer-valued expression to (array, offset), or None."""
        if isinstance(node, c_ast.Cast):
            inner = self.pointer(node.expr, scope)
            if inner is None:
                return None
            to = self.ctype(node.to_type, node)
            if to.kind != "ptr" or to.elem is None:
                return inner
            return self._recast(inner, to.elem, node)
        if isinstance(node, c_ast.ID):
            found = scope.lookup(node.name)
            if isinstance(found, PointerBinding):
                return found
            if isinstance(found, K.Memory):
                return PointerBinding(found, K.Const(0))
            if isinstance(found, ScalarMemory):
                return PointerBinding(found.mem, K.Const(0))
            return None
        if isinstance(node, c_ast.BinaryOp) and node.op in ("+", "-"):
            base = self.pointer(node.left, scope)
            if base is None and node.op == "+":
                base = self.pointer(node.right, scope)
                other = node.left
            else:
                other = node.right
            if base is None:
                return None
            return self._advance(base, self.expr_pure(other, scope), node.op == "-")
        if isinstance(node, c_ast.UnaryOp) and node.op == "&":
            target = node.expr
            if isinstance(target, c_ast.ID):
                found = scope.lookup(target.name)
                if isinstance(found, ScalarMemory):
                    return PointerBinding(found.mem, K.Const(0))
                if (isinstance(found, Alias) and isinstance(found.target, K.MemElem)
                        and found.target.field is None):
                    return PointerBinding(found.target.mem, found.target.index, found.target.view)
                return None
            if isinstance(target, c_ast.ArrayRef):
                mem, index, view = self.element(target, scope, [])
                return PointerBinding(mem, index, view)
            return None
        return None

    def _stable(self, binding: PointerBinding) -> tuple[PointerBinding, list[K.Stmt]]:
        """Freeze a pointer's offset in a fresh variable: ``p = A + i; i++; p[0]`` must
        still mean ``A[old i]``."""
        if isinstance(binding.offset, K.Const):
            return binding, []
        tmp = self.temp(binding.offset.type, "off")
        return PointerBinding(binding.mem, tmp, binding.view), [K.Decl(tmp, binding.offset, label=self.label())]

    def _advance(self, base: PointerBinding, off: K.Expr, backwards: bool) -> PointerBinding:
        """``base ± off`` in elements: pointer steps over a 2-D array move by whole rows
        (over a byte view, by ``sizeof`` of the view)."""
        stride = self._row_stride(base.mem) if base.view is None else (sizeof(base.view) or 1)
        if stride != 1:
            off = K.Binary("*", off, K.Const(stride), off.type)
        if backwards:
            off = K.Unary("-", off, off.type)
        return PointerBinding(base.mem, self._add(base.offset, off), base.view)

    def _row_stride(self, mem: K.Memory) -> int:
        stride = 1
        for d in mem.dims[1:]:
            stride *= d or 1
        return stride

    def element(self, node: c_ast.ArrayRef, scope: Scope,
                pre: list[K.Stmt]) -> tuple[K.Memory, K.Expr, K.CType | None]:
        """``a[i][j]`` → (a, flattened index, None); ``p[i]`` over a byte view → (a, byte
        offset, view)."""
        subscripts: list[c_ast.Node] = []
        base: c_ast.Node = node
        while isinstance(base, c_ast.ArrayRef):
            subscripts.append(base.subscript)
            base = base.name
        subscripts.reverse()
        binding = self.pointer(base, scope)
        if binding is None:
            name = getattr(base, "name", type(base).__name__)
            raise self.error(f"unsupported: '{name}' is not an array or a pointer into one", node)
        mem = binding.mem
        if binding.view is not None:
            if len(subscripts) != 1:
                raise self.error("unsupported: multi-dimensional indexing through a pointer cast",
                                 node)
            sub = self.expr(subscripts[0], scope, pre)
            size = sizeof(binding.view) or 1
            if size != 1:
                sub = K.Binary("*", sub, K.Const(size, K.ULONG), common_type(sub.type, K.ULONG))
            return mem, self._add(binding.offset, sub), binding.view
        dims = mem.dims
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
        stride = 1
        for d in dims[len(subscripts):]:
            stride *= d or 1
        if stride != 1:
            index = K.Binary("*", index, K.Const(stride), index.type)
        return mem, self._add(binding.offset, index), None

    def _add(self, a: K.Expr, b: K.Expr) -> K.Expr:
        if isinstance(a, K.Const) and a.value == 0:
            return b
        if isinstance(b, K.Const) and b.value == 0:
            return a
        return K.Binary("+", a, b, common_type(a.type, b.type))

    def lvalue(self, node: c_ast.Node, scope: Scope, pre: list[K.Stmt]) -> K.LValue:
        if isinstance(node, c_ast.ID):
            found = scope.lookup(node.name)
            if isinstance(found, K.Var):
                return found
            if isinstance(found, ScalarMemory):
                return self.location(found.mem, K.Const(0))
            if isinstance(found, Alias):
                return found.target
            raise self.error(f"cannot assign to '{node.name}'", node)
        if isinstance(node, c_ast.ArrayRef):
            mem, index, view = self.element(node, scope, pre)
            return self.location(mem, index, None, view)
        if isinstance(node, c_ast.UnaryOp) and node.op == "*":
            binding = self.pointer(node.expr, scope)
            if binding is None:
                raise self.error("unsupported: dereference of an unknown pointer", node)
            return self.location(binding.mem, binding.offset, None, binding.view)
        if isinstance(node, c_ast.StructRef):
            base = node.name
            if isinstance(base, (c_ast.ArrayRef,)) or (isinstance(base, c_ast.UnaryOp) and base.op == "*"):
                inner = self.lvalue(base, scope, pre)
                assert isinstance(inner, K.MemElem)
                return self.location(inner.mem, inner.index, node.field.name, inner.view)
            if node.type == "->":
                binding = self.pointer(base, scope)
                if binding is None:
                    raise self.error("unsupported: '->' on an unknown pointer", node)
                return self.location(binding.mem, binding.offset, node.field.name, binding.view)
            inner = self.lvalue(base, scope, pre)
            if isinstance(inner, K.Var):
                return K.VarField(inner, node.field.name)
            if isinstance(inner, K.MemElem) and inner.field is None:  # `r.x` of a reference
                return self.location(inner.mem, inner.index, node.field.name)
            raise self.error("unsupported: nested field assignment", node)
        if isinstance(node, c_ast.Cast):
            return self.lvalue(node.expr, scope, pre)
        raise self.error(f"unsupported assignment target: {type(node).__name__}", node)

    def reference(self, node: c_ast.Node, scope: Scope, pre: list[K.Stmt]) -> Binding:
        """What a C++ reference bound to ``node`` names: the very same lvalue, so that every
        use of the reference is an access to it.  A reference to a local is that local's
        variable; to a memory element, an :class:`Alias` of the element, its index frozen at
        binding time (``float &r = s[i]; i++;`` still names ``s[old i]``).  A non-lvalue
        (``const T &`` bound to ``a + b``) is a fresh temporary holding its value, as in C++."""
        if isinstance(node, c_ast.Cast):
            return self.reference(node.expr, scope, pre)
        if isinstance(node, c_ast.ID):
            found = scope.lookup(node.name)
            if isinstance(found, (K.Var, Alias, ScalarMemory, PointerBinding, K.Memory)):
                return found
        if isinstance(node, (c_ast.ID, c_ast.ArrayRef, c_ast.StructRef)) or (
                isinstance(node, c_ast.UnaryOp) and node.op == "*"):
            target = self.lvalue(node, scope, pre)
            if isinstance(target, K.Var):
                return target
            if isinstance(target, K.MemElem) and not isinstance(target.index, K.Const):
                tmp = self.temp(target.index.type, "ref")
                pre.append(K.Decl(tmp, target.index, label=self.label()))
                target = self.location(target.mem, tmp, target.field)
            return Alias(target)
        value = self.expr(node, scope, pre)
        tmp = self.temp(value.type, "ref")
        pre.append(K.Decl(tmp, value, label=self.label()))
        return tmp

    def read_lvalue(self, target: K.LValue) -> K.Expr:
        if isinstance(target, K.Var):
            return target
        if isinstance(target, K.VarField):
            return K.Field(target.var, target.name, target.var.type.elem or K.FLOAT)
        if target.view is not None:
            return K.Load(target.mem, target.index, target.view, None, target.view)
        return self.load(target.mem, target.index, target.field)

    def _lvalue_type(self, target: K.LValue) -> K.CType:
        if isinstance(target, K.Var):
            return target.type
        if isinstance(target, K.VarField):
            return target.var.type.elem or K.FLOAT
        if target.view is not None:
            return target.view
        if target.field is not None:
            return target.mem.elem.elem or K.FLOAT
        return target.mem.elem

    def binary(self, op: str, left: K.Expr, right: K.Expr, node: c_ast.Node) -> K.Binary:
        """``left op right`` typed by C's rules; operands C does not allow are a user error
        (exit 2), not a value the interpreters would have to invent."""
        why = invalid_operands(op, left.type, right.type)
        if why is not None:
            raise self.error(why, node)
        return K.Binary(op, left, right, binary_type(op, left.type, right.type))

    def assignment(self, node: c_ast.Assignment, scope: Scope) -> list[K.Stmt]:
        out: list[K.Stmt] = []
        if isinstance(node.lvalue, c_ast.ID):
            found = scope.lookup(node.lvalue.name)
            if isinstance(found, (PointerBinding, UnboundPointer)):
                return self._pointer_assignment(node, found, scope)
        value = self.expr(node.rvalue, scope, out)
        target = self.lvalue(node.lvalue, scope, out)
        if node.op != "=":
            current = self.read_lvalue(target)
            op = node.op[:-1]  # `x op= v` computes `x op v` in C's type for it, then converts
            value = self.binary(op, current, value, node)
        value = self._convert(value, self._lvalue_type(target))
        self.check_writable(target, node)
        out.append(K.Assign(target, value, label=self.label()))
        return out

    def check_writable(self, target: K.LValue, node: c_ast.Node) -> None:
        """Refuse a store to ``__constant__`` (or texture) memory: it is read-only for device
        code (nvcc only warns), so the kernel is bad input whatever its threads do."""
        if isinstance(target, K.MemElem) and target.mem.space in (K.Space.CONSTANT,
                                                                   K.Space.TEXTURE):
            raise self.error(f"write to {target.mem.space.value} memory '{target.mem.name}' "
                             "from device code (it is read-only for kernels)", node)

    def _pointer_assignment(self, node: c_ast.Assignment, found: PointerBinding | UnboundPointer, scope: Scope) -> list[K.Stmt]:
        """``p = q + k`` / ``p += k``: allowed in straight-line code only, where the binding
        is the same on every path (inside a loop or branch it would depend on the path)."""
        name = node.lvalue.name
        if self.control_depth > 0 and isinstance(found, PointerBinding):
            raise self.error(f"unsupported: pointer '{name}' is reassigned inside a loop or branch",
                             node)
        if node.op == "=":
            binding = self.pointer(node.rvalue, scope)
        elif node.op in ("+=", "-=") and isinstance(found, PointerBinding):
            binding = self._advance(found, self.expr_pure(node.rvalue, scope), node.op == "-=")
        else:
            binding = None
        if binding is None:
            raise self.error(f"unsupported: assignment to pointer '{name}'", node)
        stable, stmts = self._stable(binding)
        self._rebind(scope, name, stable)
        return stmts

    def _rebind(self, scope: Scope, name: str, value: Binding) -> None:
        here: Scope | None = scope
        while here is not None:
            if name in here.names:
                here.names[name] = value
                return
            here = here.parent
        scope.names[name] = value
