"""Expressions: one ``expr_<Node>`` per pycparser node class (calls in :mod:`kpl.fe.calls`).

``expr(node, scope, pre)`` returns a side-effect-free KPL expression; side effects that C hides
inside it (``A[i++]``, assignments, inlined calls) are appended to ``pre`` as leaves that run
before the statement."""

from __future__ import annotations

from pycparser import c_ast

from kpl import ast as K
from kpl.ctypes import common_type, invalid_operands, sizeof, unary_type
from kpl.fe.base import Alias, PointerBinding, ScalarMemory, Scope
from kpl.fe.decls import DeclsLowering
from kpl.fe.names import (
    BUILTIN_DIMS,
    VECTOR_FIELDS,
    WARP_SIZE,
)
from kpl.fe.types import int_type


class ExprsLowering(DeclsLowering):
    """``expr_<Node>``: one method per pycparser expression class."""

    def condition(self, node: c_ast.Node, scope: Scope, pre: list[K.Stmt]) -> K.Expr:
        """A memory-free condition; memory reads are hoisted into a synthetic leaf."""
        null = self.null_test(node, scope)
        if null is not None:
            return null
        before = len(pre)
        value = self.expr(node, scope, pre)
        if len(pre) != before or any(isinstance(e, (K.Load, K.Atomic)) for e in K.walk_expr(value)):
            tmp = self.temp(K.INT, "cond")
            pre.append(K.Decl(tmp, value, label=self.label(), placeable=False, synthetic=True))
            return tmp
        return value

    def _is_null(self, node: c_ast.Node) -> bool:
        while isinstance(node, c_ast.Cast):
            node = node.expr
        return (isinstance(node, c_ast.ID) and node.name in ("NULL", "nullptr")) or (
            isinstance(node, c_ast.Constant) and node.value in ("0", "0L", "0UL"))

    def null_test(self, node: c_ast.Node, scope: Scope) -> K.Expr | None:
        """``p``, ``!p``, ``p == NULL``, ``p != 0`` on a pointer, as a condition, or None.
        A NULL argument is null and a local or shared array is not; a pointer into global
        memory (a kernel parameter) may be either: a boolean unknown to the verifier, the
        same for every thread (a kernel argument is uniform), so both branches are explored
        (soundness: a launch with a NULL argument takes the other branch)."""
        negate = False
        if isinstance(node, c_ast.UnaryOp) and node.op == "!":
            negate, node = True, node.expr
        elif isinstance(node, c_ast.BinaryOp) and node.op in ("==", "!="):
            left, right = node.left, node.right
            if self._is_null(left):
                left, right = right, left
            if not self._is_null(right):
                return None
            negate, node = node.op == "==", left
        if not isinstance(node, c_ast.ID):
            return None
        found = scope.lookup(node.name)
        mem = found if isinstance(found, K.Memory) else (
            found.mem if isinstance(found, PointerBinding) else None)
        if mem is None:
            return None
        test: K.Expr
        if mem.name in self.null_memories:
            test = K.Const(0, K.BOOL)
        elif mem.space == K.Space.GLOBAL:
            test = K.Call(f"__kpl_nonnull_{mem.name}", (), K.BOOL)
        else:
            test = K.Const(1, K.BOOL)
        return K.Unary("!", test, K.BOOL) if negate else test

    def expr_Constant(self, node: c_ast.Constant, scope: Scope, pre: list[K.Stmt]) -> K.Expr:
        text = node.value
        if node.type in ("char",):
            body = text[1:-1]
            value = ord(body.encode().decode("unicode_escape")) if body else 0
            return K.Const(value, int_type(8, True))
        if node.type == "string":
            return K.Call("__string", (), K.INT)
        lowered = text.lower()
        if node.type in ("float", "double", "long double") or (
                ("." in text or "e" in lowered) and not lowered.startswith("0x")):
            is_float = lowered.endswith("f")
            return K.Const(float(lowered.rstrip("fl")), K.FLOAT if is_float else K.DOUBLE)
        digits = lowered.rstrip("ul")
        suffix = lowered[len(digits):]
        value = int(digits, 0) if not (digits.startswith("0") and digits[1:].isdigit()) else int(digits, 8)
        unsigned = "u" in suffix
        bits = 64 if ("l" in suffix and suffix.count("l") >= 1 and value > 0x7FFFFFFF) or value > 0xFFFFFFFF else 32
        if not unsigned and value > 0x7FFFFFFF and bits == 32:
            unsigned = True
        return K.Const(value, int_type(bits, not unsigned))

    def expr_ID(self, node: c_ast.ID, scope: Scope, pre: list[K.Stmt]) -> K.Expr:
        name = node.name
        if name == "warpSize":
            return K.Const(WARP_SIZE, K.INT)
        if name in ("true", "false"):
            return K.Const(1 if name == "true" else 0, K.BOOL)
        if name in ("CLK_LOCAL_MEM_FENCE", "CLK_GLOBAL_MEM_FENCE", "NULL"):
            return K.Const(0)
        found = scope.lookup(name)
        if isinstance(found, K.Var):
            return found
        if isinstance(found, ScalarMemory):
            return self.load(found.mem, K.Const(0))
        if isinstance(found, Alias):
            return self.read_lvalue(found.target)
        if isinstance(found, (K.Memory, PointerBinding)):
            raise self.error(f"unsupported: array or pointer '{name}' used as a value", node)
        if name in self.functions:  # a function as a function-pointer value (kpl.fe.calls)
            return K.Const(self.function_number(name), K.INT)
        enum_value = self._enum_constant(name)
        if enum_value is None:
            enum_value = self._file_constant(name)
        if enum_value is not None:
            return K.Const(enum_value)
        raise self.error(f"unknown identifier '{name}'", node)

    def expr_StructRef(self, node: c_ast.StructRef, scope: Scope, pre: list[K.Stmt]) -> K.Expr:
        base = node.name
        fname = node.field.name
        if isinstance(base, c_ast.ID) and base.name in BUILTIN_DIMS and scope.lookup(base.name) is None:
            if fname not in ("x", "y", "z"):
                raise self.error(f"'{base.name}' has no field '{fname}'", node)
            return K.Builtin(base.name, fname, K.UINT)
        ref = self.member_ref(node, scope, pre)
        if ref is not None:  # a struct with a byte layout (kpl.fe.members)
            return self.member_read(ref)
        if node.type == "->":
            binding = self.pointer(base, scope)
            if binding is None:
                raise self.error("unsupported: '->' on an unknown pointer", node)
            return self.deref(binding, fname)
        alias = scope.lookup(base.name) if isinstance(base, c_ast.ID) else None
        if (isinstance(base, c_ast.ArrayRef) or (isinstance(base, c_ast.UnaryOp) and base.op == "*")
                or (isinstance(alias, Alias) and isinstance(alias.target, K.MemElem))):
            target = self.lvalue(base, scope, pre)
            assert isinstance(target, K.MemElem)
            return self.load(target.mem, target.index, fname, target.view)
        value = self.expr(base, scope, pre)
        elem = value.type.elem if value.type.kind == "vec" and value.type.elem else K.FLOAT
        return K.Field(value, fname, elem)

    def size_of(self, target: c_ast.Node, scope: Scope) -> int:
        """``sizeof`` of a type name or an expression (an array: all its elements), in
        bytes under the CUDA ABI (:func:`kpl.ctypes.sizeof`)."""
        if isinstance(target, c_ast.Typename):
            if isinstance(target.type, c_ast.ArrayDecl):
                elem, dims = self._array_shape(target.type, target)
                return self._sized(elem, target) * self._extent(dims, target)
            return self._sized(self.ctype(target.type, target), target)
        found = scope.lookup(target.name) if isinstance(target, c_ast.ID) else None
        if isinstance(found, PointerBinding):
            return 8
        if isinstance(found, K.Memory) and None not in found.dims:
            return self._sized(found.elem, target) * self._extent(found.dims, target)
        return self._sized(self.expr(target, scope, []).type, target)

    def _extent(self, dims: tuple[int | None, ...], where: c_ast.Node) -> int:
        n = 1
        for d in dims:
            if d is None:
                raise self.error("unsupported: sizeof an array of unknown extent", where)
            n *= d
        return n

    def _sized(self, typ: K.CType, where: c_ast.Node) -> int:
        size = sizeof(typ)
        if size is None:
            # a type without a modelled layout: the old estimate (fields times their width)
            return max(1, typ.bits // 8) * (len(typ.fields) if typ.kind == "vec" else 1)
        return size

    def expr_ArrayRef(self, node: c_ast.ArrayRef, scope: Scope, pre: list[K.Stmt]) -> K.Expr:
        mem, index, view = self.element(node, scope, pre)
        return self.load(mem, index, None, view)

    def expr_UnaryOp(self, node: c_ast.UnaryOp, scope: Scope, pre: list[K.Stmt]) -> K.Expr:
        op = node.op
        if op == "sizeof":
            target = node.expr
            return K.Const(self.size_of(target, scope), K.ULONG)
        if op in ("p++", "p--", "++", "--"):
            target = self.lvalue(node.expr, scope, pre)
            current = self.read_lvalue(target)
            delta = K.Binary("+" if "+" in op else "-", current, K.Const(1), current.type)
            if op.startswith("p"):
                tmp = self.temp(current.type)
                pre.append(K.Decl(tmp, current, label=self.label()))
                pre.append(K.Assign(target, delta, label=self.label()))
                return tmp
            pre.append(K.Assign(target, delta, label=self.label()))
            return self.read_lvalue(target)
        if op == "*":
            binding = self.pointer(node.expr, scope)
            if binding is None:
                raise self.error("unsupported: dereference of an unknown pointer", node)
            return self.deref(binding)
        if op == "&" and isinstance(node.expr, c_ast.ID) and node.expr.name in self.functions \
                and scope.lookup(node.expr.name) is None:
            return K.Const(self.function_number(node.expr.name), K.INT)
        if op == "&":
            raise self.error("unsupported: address-of outside an atomic call or pointer "
                             "initialiser", node)
        operand = self.expr(node.expr, scope, pre)
        if op == "+":
            return operand
        why = invalid_operands(op, operand.type)
        if why is not None:
            raise self.error(why, node)
        return K.Unary(op, operand, unary_type(op, operand.type))

    def expr_BinaryOp(self, node: c_ast.BinaryOp, scope: Scope, pre: list[K.Stmt]) -> K.Expr:
        op = node.op
        if op in ("&&", "||"):
            # reads on the right happen only if the left does not decide: keep them in
            # the expression (no hoisting of side effects past the short circuit)
            right_pre: list[K.Stmt] = []
            left = self.expr(node.left, scope, pre)
            right = self.expr(node.right, scope, right_pre)
            if right_pre:
                raise self.error(f"unsupported: side effect on the right of '{op}'", node.right)
            return self.binary(op, left, right, node)
        left = self.expr(node.left, scope, pre)
        right = self.expr(node.right, scope, pre)
        return self.binary(op, left, right, node)

    def expr_TernaryOp(self, node: c_ast.TernaryOp, scope: Scope, pre: list[K.Stmt]) -> K.Expr:
        probe: list[K.Stmt] = []
        cond = self.expr(node.cond, scope, probe)
        then_pre: list[K.Stmt] = []
        else_pre: list[K.Stmt] = []
        then = self.expr(node.iftrue, scope, then_pre)
        els = self.expr(node.iffalse, scope, else_pre)
        typ = common_type(then.type, els.type)
        if not then_pre and not else_pre:
            pre.extend(probe)
            return K.Cond(cond, then, els, typ)
        # an arm with side effects (an inlined call): `if (c) t = a; else t = b;`
        if probe or any(isinstance(e, (K.Load, K.Atomic)) for e in K.walk_expr(cond)):
            tmp_cond = self.temp(K.INT, "cond")
            pre.extend(probe)
            pre.append(K.Decl(tmp_cond, cond, label=self.label(), placeable=False, synthetic=True))
            cond = tmp_cond
        result = self.temp(typ, "sel")
        pre.append(K.Decl(result, None, label=self.label(), placeable=False, synthetic=True))
        arms = []
        for stmts, value in ((then_pre, then), (else_pre, els)):
            stmts.append(K.Assign(result, self._convert(value, typ), label=self.label()))
            for stmt in stmts:
                stmt.placeable, stmt.synthetic = False, True
                stmt.span = stmt.span or self.spans.span_of(node)
            arms.append(K.Block(stmts, self.label(), self.label(), K.BlockSource(),
                                placeable_start=False))
        pre.append(K.If(cond, arms[0], arms[1], label=arms[0].label, placeable=False,
                        synthetic=True))
        return result

    def expr_Cast(self, node: c_ast.Cast, scope: Scope, pre: list[K.Stmt]) -> K.Expr:
        typ = self.ctype(node.to_type.type, node)
        value = self.expr(node.expr, scope, pre)
        return self._convert(value, typ)

    def expr_ExprList(self, node: c_ast.ExprList, scope: Scope, pre: list[K.Stmt]) -> K.Expr:
        for e in node.exprs[:-1]:
            pre.extend(self.effects(e, scope))
        return self.expr(node.exprs[-1], scope, pre)

    def expr_Assignment(self, node: c_ast.Assignment, scope: Scope, pre: list[K.Stmt]) -> K.Expr:
        stmts = self.assignment(node, scope)
        pre.extend(stmts)
        last = stmts[-1]
        assert isinstance(last, K.Assign)
        return self.read_lvalue(last.target)

    def expr_InitList(self, node: c_ast.InitList, scope: Scope, pre: list[K.Stmt]) -> K.Expr:
        parts = tuple(self.expr(e, scope, pre) for e in node.exprs)
        return K.VecInit(K.CType("vec", 32, True, "init", K.FLOAT, VECTOR_FIELDS[:len(parts)]), parts)

    def expr_CompoundLiteral(self, node: c_ast.CompoundLiteral, scope: Scope, pre: list[K.Stmt]) -> K.Expr:
        typ = self.ctype(node.type.type, node)
        parts = tuple(self.expr(e, scope, pre) for e in node.init.exprs)
        return K.VecInit(typ, parts)
