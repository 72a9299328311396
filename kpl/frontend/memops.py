"""``memcpy`` / ``memset`` (and ``__builtin_memcpy``/``__builtin_memset``/``memmove``) in
device code, translated to the reads and writes they perform.  The callee reaches
:meth:`MemOpsTranslation.memory_function` by name (our prelude declares ``memcpy``/``memset``
``extern "C"``; clang names its builtins ``__builtin_...``); its arguments are clang nodes.

WHY: a copy is a range of accesses.  Dropping the call hides every race on its bytes (a
write-write race between two threads' copies that overlap in ONE byte included), so each
call becomes the accesses of the byte-level memory model (:mod:`kpl.frontend.access`): for every
unit of the range a read of the source and a write of the destination (``memset``: a write
of the value).

The unit is the element of the two arrays when both are addressed by element and the size
is a constant multiple of it (plain element accesses: kernels that never cast stay in the
element model, and local arrays keep their values); otherwise the largest power of two
(at most 8 bytes) that divides the size and both byte offsets' known alignment, accessed as
byte views.  A constant size of at most :data:`UNROLL` units is unrolled into one C
statement's leaves; a larger or symbolic size is a synthetic loop over the units whose bound
is the size (symbolic: a byte loop).
"""

from __future__ import annotations

from collections.abc import Callable

from kpl import ast as K
from kpl.ctypes import common_type, sizeof
from kpl.frontend import tree
from kpl.frontend.access import decl_id, peel
from kpl.frontend.annotations import AnnotationsTranslation
from kpl.frontend.state import PointerBinding, Scope
from kpl.frontend.tree import Node
from kpl.frontend.types import int_type

#: names translated here -> "copy" (dst, src, n) or "set" (dst, value, n)
MEMORY_FUNCTIONS = {"memcpy": "copy", "__builtin_memcpy": "copy", "memmove": "copy",
                    "__builtin_memmove": "copy", "memset": "set", "__builtin_memset": "set"}
#: at most this many units are unrolled; more is a synthetic loop
UNROLL = 16


class MemOpsTranslation(AnnotationsTranslation):
    """``memcpy``/``memset`` as ranges of accesses (module docstring)."""

    def memory_function(self, node: Node, name: str, args: list[Node], scope: Scope,
                        pre: list[K.Stmt]) -> K.Expr:
        """Append the accesses of ``name(dst, x, n)`` to ``pre``; its value (``dst``) is not
        modelled as a pointer value, so using it is refused."""
        if len(args) != 3:
            raise self.error(f"'{name}' takes 3 arguments", node)
        kind = MEMORY_FUNCTIONS[name]
        whole = self._value_copy(node, kind, args, scope, pre)
        if whole is not None:
            pre.extend(whole)
            return K.Const(0)
        dst = self._memory_operand(args[0], name, "destination", scope)
        src = self._memory_operand(args[1], name, "source", scope) if kind == "copy" else None
        value = self.expr(args[1], scope, pre) if kind == "set" else None
        size = self.expr(args[2], scope, pre)
        folded = self.fold(size)
        count = int(folded) if isinstance(folded, (int, float)) else None
        if count is not None and count <= 0:
            return K.Const(0)
        sides = [dst] + ([src] if src is not None else [])
        unit = self._element_unit(sides, count)
        if unit is None:
            width = self._byte_width(sides, count)
            sides = [self._as_bytes(s, node) for s in sides]
        else:
            width = unit
        view = None if unit is not None else int_type(8 * width, False)
        units = None if count is None else count // width
        stmts: list[K.Stmt] = []

        def one(k: K.Expr) -> list[K.Stmt]:
            step = k if view is None else self._scaled(k, width)
            target = self.location(dst_b.mem, self._add(dst_b.offset, step), None, view)
            if src_b is not None:
                read: K.Expr = self.load(src_b.mem, self._add(src_b.offset, step), None, view)
            else:
                assert value is not None
                read = self._fill(value, self.lvalue_type(target), width)
            return [K.Assign(target, self.convert(read, self.lvalue_type(target)),
                             label=self.label())]

        dst_b = sides[0]
        src_b = sides[1] if len(sides) > 1 else None
        if units is not None and units <= UNROLL:
            for k in range(units):
                stmts.extend(one(K.Const(k, K.ULONG)))
        else:
            bound: K.Expr = K.Const(units, K.ULONG) if units is not None else size
            if any(isinstance(e, (K.Load, K.Atomic)) for e in K.walk_expr(bound)):
                tmp = self.temp(bound.type, "len")  # a loop bound is memory-free (kpl.ast)
                stmts.append(K.Decl(tmp, bound, label=self.label()))
                bound = tmp
            stmts.extend(self._unit_loop(bound, one, node))
        for stmt in stmts:
            stmt.span = stmt.span or self.span_of(node)
        pre.extend(stmts)
        return K.Const(0)

    # ------------------------------------------------------------------ operands

    def _local_value(self, arg: Node, scope: Scope) -> K.Var | None:
        """The local value variable ``&v`` names (``memcpy(&bits, …)``), or None."""
        inner = peel(arg)
        while tree.kind(inner) in ("CStyleCastExpr", "CXXStaticCastExpr", "CXXReinterpretCastExpr") \
                or (tree.kind(inner) == "ImplicitCastExpr" and inner.get("castKind") == "BitCast"):
            inner = peel(tree.children(inner)[0])
        if tree.kind(inner) != "UnaryOperator" or inner.get("opcode") != "&":
            return None
        found = scope.lookup(decl_id(tree.children(inner)[0]) or "")
        return found if isinstance(found, K.Var) else None

    def _value_copy(self, node: Node, kind: str, args: list[Node], scope: Scope,
                    pre: list[K.Stmt]) -> list[K.Stmt] | None:
        """A copy of a whole local value from or into memory of the same size (the type-pun
        ``memcpy(&payload, &bits, sizeof(bits))``): one store of the value viewed as its
        type, or one load into it.  None: not such a copy."""
        if kind != "copy":
            return None
        dst_var, src_var = self._local_value(args[0], scope), self._local_value(args[1], scope)
        if dst_var is None and src_var is None:
            return None
        size = self.fold(self.expr(args[2], scope, pre))
        var = src_var if src_var is not None else dst_var
        assert var is not None
        if not isinstance(size, int) or sizeof(var.type) != size:
            raise self.error("unsupported: a 'memcpy' of part of a local variable", node)
        if src_var is not None and dst_var is not None:
            return [K.Assign(dst_var, K.Call("__kpl_bits", (src_var,), dst_var.type), label=self.label())]
        if src_var is not None:
            dst = self._memory_operand(args[0], "memcpy", "destination", scope)
            return [K.Assign(self.location(dst.mem, self._bytes_at(dst), None, src_var.type), src_var,
                             label=self.label())]
        src = self._memory_operand(args[1], "memcpy", "source", scope)
        assert dst_var is not None
        return [K.Assign(dst_var, self.load(src.mem, self._bytes_at(src), None, dst_var.type),
                         label=self.label())]

    def _bytes_at(self, b: PointerBinding) -> K.Expr:
        """The byte offset a binding points at."""
        if b.view is not None:
            return b.offset
        size = sizeof(b.mem.elem) or 1
        return b.offset if size == 1 else K.Binary("*", b.offset, K.Const(size, K.ULONG), K.ULONG)

    def _memory_operand(self, arg: Node, name: str, role: str,
                        scope: Scope) -> PointerBinding:
        binding = self.pointer(arg, scope)
        if binding is None:
            raise self.error(f"unsupported: the {role} of '{name}' does not point into a known "
                             "array", arg)
        return binding

    def _element_unit(self, sides: list[PointerBinding], count: int | None) -> int | None:
        """The element size when every side is addressed by element of that one size and
        ``count`` is a multiple of it (element accesses); else None (byte views)."""
        sizes = {sizeof(s.mem.elem) if s.view is None else None for s in sides}
        if len(sizes) != 1:
            return None
        size = sizes.pop()
        if size is None or count is None or count % size != 0:
            return None
        if any(s.mem.elem.kind == "vec" for s in sides):
            return None  # a vector/struct element is copied through byte views of its words
        return size

    def _byte_width(self, sides: list[PointerBinding], count: int | None) -> int:
        """The widest power of two (<= 8) dividing the size and every side's known alignment."""
        if count is None:
            return 1
        width = 8
        for s in sides:
            elem = s.view if s.view is not None else s.mem.elem
            size = sizeof(elem) or 1
            if s.view is not None and not isinstance(s.offset, K.Const):
                size = 1  # a byte offset of unknown alignment
            elif isinstance(s.offset, K.Const):
                off = int(s.offset.value) * (1 if s.view is not None else size)
                size = off & -off if off else size
            width = min(width, size & -size)
        while width > 1 and count % width:
            width //= 2
        return max(1, width)

    def _as_bytes(self, b: PointerBinding, node: Node) -> PointerBinding:
        """``b`` with a byte offset (a byte view of its array)."""
        if b.view is not None:
            return b
        size = sizeof(b.mem.elem)
        if size is None:
            raise self.error(f"unsupported: memory operation on '{b.mem.name}', whose element "
                             f"type '{b.mem.elem}' has no byte layout", node)
        return PointerBinding(b.mem, self._scaled(b.offset, size), int_type(8, False))

    def _scaled(self, e: K.Expr, factor: int) -> K.Expr:
        if factor == 1:
            return e
        if isinstance(e, K.Const):
            return K.Const(int(e.value) * factor, K.ULONG)
        return K.Binary("*", e, K.Const(factor, K.ULONG), common_type(e.type, K.ULONG))

    def _fill(self, value: K.Expr, typ: K.CType, width: int) -> K.Expr:
        """The value ``memset`` leaves in one unit of type ``typ``: the byte repeated."""
        byte = self.fold(value)
        if isinstance(byte, (int, float)):
            b = int(byte) & 0xFF
            if b == 0:
                return K.Const(0.0, typ) if typ.kind == "float" else K.Const(0, typ)
            if typ.kind == "int":
                return K.Const(int.from_bytes(bytes([b]) * width, "little"), int_type(8 * width,
                                                                                      False))
        if typ.kind == "int" and width == 1:
            return value
        return K.Call("__kpl_memset_fill", (value,), typ)  # any value: a pure, opaque function

    def _unit_loop(self, bound: K.Expr, one: Callable[[K.Expr], list[K.Stmt]],
                   node: Node) -> list[K.Stmt]:
        """``for (k = 0; k < bound; k++) one(k)`` as synthetic statements."""
        k = self.temp(K.ULONG, "mem")
        span = self.span_of(node)
        init = K.Decl(k, K.Const(0, K.ULONG), label=self.label())
        label, start = self.label(), self.label()
        body_stmts: list[K.Stmt] = one(k)
        for stmt in body_stmts:
            stmt.placeable, stmt.synthetic, stmt.span = False, True, span
        body = K.Block(body_stmts, label, start, K.BlockSource(), placeable_start=False)
        step = K.Binary("+", k, K.Const(1, K.ULONG), K.ULONG)
        latch: list[K.Stmt] = [K.Assign(k, step, label=self.label(), placeable=False,
                                        synthetic=True, span=span)]
        cond = K.Binary("<", k, self.convert(bound, K.ULONG), K.INT)
        return [init, K.Loop(cond, body, latch, kind="for", label=label)]
