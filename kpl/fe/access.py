"""Memory accesses: the ONE place where pointers, array elements, lvalues, loads and stores
are built.

A pointer is resolved statically to ``(memory, element offset)`` (:class:`PointerBinding`);
an array element ``a[i][j]`` to ``(memory, flattened index)``.  A change of the memory model
(e.g. accesses as byte offset + width) changes this module only.
"""

from __future__ import annotations

from pycparser import c_ast

from kpl import ast as K
from kpl.ctypes import binary_type, common_type
from kpl.fe.base import Alias, Binding, PointerBinding, ScalarMemory, Scope, UnboundPointer
from kpl.fe.types import TypesLowering


class AccessLowering(TypesLowering):
    """Pointers, array elements, lvalues and assignments: how C names memory."""

    # ------------------------------------------------------------------ the memory model
    # Every KPL access to a memory is built by the three methods below; a different memory
    # model (e.g. byte offset + width instead of element index + field) changes only them
    # and the index arithmetic of `element`/`_advance`.

    def location(self, mem: K.Memory, index: K.Expr, field: str | None = None) -> K.MemElem:
        """Element ``index`` of ``mem`` (its ``field`` for a vector/struct element)."""
        return K.MemElem(mem, index, field)

    def load(self, mem: K.Memory, index: K.Expr, field: str | None = None) -> K.Load:
        """A read of :meth:`location` ``(mem, index, field)``, typed by the element."""
        typ = mem.elem if field is None else (mem.elem.elem or K.FLOAT)
        return K.Load(mem, index, typ, field)

    def atomic(self, name: str, at: PointerBinding, args: tuple[K.Expr, ...]) -> K.Atomic:
        """Atomic read-modify-write ``name`` of the element ``at`` points to."""
        return K.Atomic(name, at.mem, at.offset, args, at.mem.elem)

    # ------------------------------------------------------------------ pointers

    def pointer(self, node: c_ast.Node, scope: Scope) -> PointerBinding | None:
        """Resolve a pointer-valued expression to (array, offset), or None."""
        if isinstance(node, c_ast.Cast):
            return self.pointer(node.expr, scope)
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
                    return PointerBinding(found.target.mem, found.target.index)
                return None
            if isinstance(target, c_ast.ArrayRef):
                mem, index = self.element(target, scope, [])
                return PointerBinding(mem, index)
            return None
        return None

    def _stable(self, binding: PointerBinding) -> tuple[PointerBinding, list[K.Stmt]]:
        """Freeze a pointer's offset in a fresh variable: ``p = A + i; i++; p[0]`` must
        still mean ``A[old i]``."""
        if isinstance(binding.offset, K.Const):
            return binding, []
        tmp = self.temp(binding.offset.type, "off")
        return PointerBinding(binding.mem, tmp), [K.Decl(tmp, binding.offset, label=self.label())]

    def _advance(self, base: PointerBinding, off: K.Expr, backwards: bool) -> PointerBinding:
        """``base ± off`` in elements: pointer steps over a 2-D array move by whole rows."""
        stride = self._row_stride(base.mem)
        if stride != 1:
            off = K.Binary("*", off, K.Const(stride), off.type)
        if backwards:
            off = K.Unary("-", off, off.type)
        return PointerBinding(base.mem, self._add(base.offset, off))

    def _row_stride(self, mem: K.Memory) -> int:
        stride = 1
        for d in mem.dims[1:]:
            stride *= d or 1
        return stride

    def element(self, node: c_ast.ArrayRef, scope: Scope, pre: list[K.Stmt]) -> tuple[K.Memory, K.Expr]:
        """``a[i][j]`` → (a, flattened index)."""
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
        return mem, self._add(binding.offset, index)

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
            mem, index = self.element(node, scope, pre)
            return self.location(mem, index)
        if isinstance(node, c_ast.UnaryOp) and node.op == "*":
            binding = self.pointer(node.expr, scope)
            if binding is None:
                raise self.error("unsupported: dereference of an unknown pointer", node)
            return self.location(binding.mem, binding.offset)
        if isinstance(node, c_ast.StructRef):
            base = node.name
            if isinstance(base, (c_ast.ArrayRef,)) or (isinstance(base, c_ast.UnaryOp) and base.op == "*"):
                inner = self.lvalue(base, scope, pre)
                assert isinstance(inner, K.MemElem)
                return self.location(inner.mem, inner.index, node.field.name)
            if node.type == "->":
                binding = self.pointer(base, scope)
                if binding is None:
                    raise self.error("unsupported: '->' on an unknown pointer", node)
                return self.location(binding.mem, binding.offset, node.field.name)
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
        return self.load(target.mem, target.index, target.field)

    def _lvalue_type(self, target: K.LValue) -> K.CType:
        if isinstance(target, K.Var):
            return target.type
        if isinstance(target, K.VarField):
            return target.var.type.elem or K.FLOAT
        if target.field is not None:
            return target.mem.elem.elem or K.FLOAT
        return target.mem.elem

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
            value = K.Binary(op, current, value, binary_type(op, current.type, value.type))
        value = self._convert(value, self._lvalue_type(target))
        out.append(K.Assign(target, value, label=self.label()))
        return out

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
