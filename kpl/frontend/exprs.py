"""Expressions: one ``expr_<Kind>`` per clang expression kind (calls in :mod:`kpl.frontend.calls`).

``expr(node, scope, pre)`` returns a side-effect-free KPL expression; side effects that C++
hides inside it (``A[i++]``, assignments, inlined calls) are appended to ``pre`` as leaves
that run before the statement.  clang has made every conversion explicit
(``ImplicitCastExpr``) and typed every node, so types come from clang, not from our rules.

Why one piece of this size: it is the table of clang's expression kinds, one method each.
"""

from __future__ import annotations

import os

from kpl import ast as K
from kpl.ctypes import common_type, invalid_operands, sizeof, unary_type
from kpl.frontend import tree
from kpl.frontend.access import decl_id, peel
from kpl.frontend.consteval import ConstEval
from kpl.frontend.held import HeldTranslation
from kpl.frontend.state import Alias, DynPointer, PointerBinding, ScalarMemory, Scope, UnboundPointer
from kpl.frontend.tree import Node
from kpl.frontend.types import int_type
from kpl.placement import WARP_SIZE

BUILTIN_DIMS = {"threadIdx", "blockIdx", "blockDim", "gridDim"}


class ExprsTranslation(HeldTranslation):
    """``expr_<Kind>``: one method per clang expression kind."""

    def condition(self, node: Node, scope: Scope, pre: list[K.Stmt]) -> K.Expr:
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

    def null_test(self, node: Node, scope: Scope) -> K.Expr | None:
        """``p``, ``!p``, ``p == NULL``, ``p != nullptr`` on a pointer, as a condition, or None.
        A NULL argument is null and a local or shared array is not; a pointer into global
        memory (a kernel parameter) may be either: a boolean unknown to the verifier, the
        same for every thread, so both branches are explored."""
        negate = False
        node = peel(node)
        if tree.kind(node) == "ImplicitCastExpr" and node.get("castKind") == "PointerToBoolean":
            node = tree.children(node)[0]
        elif tree.kind(node) == "UnaryOperator" and node.get("opcode") == "!":
            inner = peel(tree.children(node)[0])
            if not (tree.kind(inner) == "ImplicitCastExpr" and inner.get("castKind") == "PointerToBoolean"):
                return None
            negate, node = True, tree.children(inner)[0]
        elif tree.kind(node) == "BinaryOperator" and node.get("opcode") in ("==", "!="):
            left, right = tree.children(node)[:2]
            if self.is_null(left):
                left, right = right, left
            if not self.is_null(right) or not self._is_pointerish(left):
                return None
            negate, node = node.get("opcode") == "==", left
        else:
            return None
        ident = decl_id(node)
        found = scope.lookup(ident) if ident else None
        if isinstance(found, DynPointer):
            return self.dyn_null_test(found, negate)
        if isinstance(found, UnboundPointer) and not found.null:  # `T *p;` never set: its value is
            unset = K.Call(f"{K.ARBITRARY}uninitialised_{found.name}", (), K.BOOL)  # indeterminate
            return K.Unary("!", unset, K.BOOL) if negate else unset
        if isinstance(found, UnboundPointer):  # `T *p = nullptr;` not set since: null
            return K.Unary("!", K.Const(0, K.BOOL), K.BOOL) if negate else K.Const(0, K.BOOL)
        mem = found if isinstance(found, K.Memory) else (
            found.mem if isinstance(found, PointerBinding) else None)
        if mem is None:
            return None
        test: K.Expr
        if mem.space == K.Space.GLOBAL:
            test = K.Call(f"__kpl_nonnull_{mem.name}", (), K.BOOL)
        else:
            test = K.Const(1, K.BOOL)
        return K.Unary("!", test, K.BOOL) if negate else test

    # ------------------------------------------------------------------ literals

    def expr_IntegerLiteral(self, node: Node, scope: Scope, pre: list[K.Stmt]) -> K.Expr:
        return K.Const(int(node["value"]), self.type_of(node))

    def expr_CharacterLiteral(self, node: Node, scope: Scope, pre: list[K.Stmt]) -> K.Expr:
        return K.Const(int(node["value"]), self.type_of(node))

    def expr_CXXBoolLiteralExpr(self, node: Node, scope: Scope, pre: list[K.Stmt]) -> K.Expr:
        return K.Const(1 if node.get("value") else 0, K.BOOL)

    def expr_FloatingLiteral(self, node: Node, scope: Scope, pre: list[K.Stmt]) -> K.Expr:
        return K.Const(float.fromhex(node["value"]) if "0x" in str(node["value"]).lower()
                       else float(node["value"]), self.type_of(node))

    def expr_StringLiteral(self, node: Node, scope: Scope, pre: list[K.Stmt]) -> K.Expr:
        return K.Call("__string", (), K.INT)

    def expr_CXXNullPtrLiteralExpr(self, node: Node, scope: Scope, pre: list[K.Stmt]) -> K.Expr:
        return K.Const(0)

    def expr_GNUNullExpr(self, node: Node, scope: Scope, pre: list[K.Stmt]) -> K.Expr:
        return K.Const(0)

    def expr_ConstantExpr(self, node: Node, scope: Scope, pre: list[K.Stmt]) -> K.Expr:
        typ = self.type_of(node)
        value = node.get("value")
        if value is not None and typ.kind in ("int", "bool"):
            try:
                return K.Const(int(value), typ)
            except ValueError:
                pass
        return self.expr(tree.children(node)[0], scope, pre)

    # ------------------------------------------------------------------ names

    def builtin_var(self, node: Node) -> str | None:
        """``threadIdx`` … when ``node`` names one of the built-in variables of our prelude."""
        ref = peel(node).get("referencedDecl") or {}
        name = ref.get("name")
        if name in BUILTIN_DIMS or name == "warpSize":
            decl = self.index.get(ref.get("id"))
            if decl is not None and self.is_bundled(decl):
                return str(name)
        return None

    def is_bundled(self, decl: Node) -> bool:
        return self.bundled_header(decl) is not None

    def bundled_header(self, decl: Node) -> str | None:
        """The file name of our header that declares ``decl`` (None: not one of ours)."""
        loc = tree.location(decl.get("loc")) or tree.location(decl.get("range", {}).get("begin"))
        path = str(loc.get("file", "")) if loc else ""
        if not path.startswith(self.unit.bundled_dir):
            return None
        return os.path.basename(path)

    def expr_DeclRefExpr(self, node: Node, scope: Scope, pre: list[K.Stmt]) -> K.Expr:
        ref = node.get("referencedDecl") or {}
        name = str(ref.get("name", "?"))
        builtin = self.builtin_var(node)
        if builtin == "warpSize":
            return K.Const(WARP_SIZE, K.INT)
        found = scope.lookup(str(ref.get("id")))
        if isinstance(found, K.Var):
            return found
        if isinstance(found, ScalarMemory):
            return self.load(found.mem, K.Const(0))
        if isinstance(found, Alias):
            return self.read_lvalue(found.target)
        if isinstance(found, (K.Memory, PointerBinding, DynPointer)):
            raise self.error(f"unsupported: array or pointer '{name}' used as a value", node)
        kind = ref.get("kind")
        if kind == "EnumConstantDecl":
            return K.Const(self.enum_value(str(ref.get("id"))), self.type_of(node))
        if kind in ("FunctionDecl", "CXXMethodDecl"):
            return K.Const(self.function_number(str(ref.get("id"))), K.INT)
        decl = self.index.get(ref.get("id"))
        if decl is not None and tree.kind(decl) == "VarDecl":
            value = self.constant_var(decl)
            if value is not None:
                return value
        raise self.error(f"unsupported: '{name}' (a {kind or 'declaration'} the kernel cannot read)",
                         node)

    def enum_value(self, decl_id_: str) -> int:
        """The value of an enumerator: its initialiser, or one more than the one before."""
        decl = self.index.get(decl_id_)
        parent = self.index.parent.get(decl_id_) if decl is not None else None
        if decl is None:
            raise self.error("unsupported: enumerator without a declaration")
        siblings = [c for c in tree.children(parent)] if parent is not None else [decl]
        value = -1
        for item in siblings:
            if tree.kind(item) != "EnumConstantDecl":
                continue
            init = tree.children(item)
            if init:
                folded = self.fold(self.expr_pure(init[0]))
                if not isinstance(folded, int):
                    raise self.error("unsupported: enumerator whose value is not a constant", item)
                value = folded
            else:
                value += 1
            if item.get("id") == decl_id_:
                return value
        raise self.error("unsupported: enumerator not found in its enum", decl)

    def constant_var(self, decl: Node) -> K.Expr | None:
        """A file-scope or ``static`` ``const``/``constexpr`` scalar with a constant initialiser."""
        text = tree.written_type(decl)
        if not (decl.get("constexpr") or text.startswith("const ") or " const" in text):
            return None
        init = [c for c in tree.children(decl) if not tree.kind(c).endswith("Attr")]
        if not init:
            return None
        typ = self.ctype(tree.qual_type(decl), decl)
        if typ.kind in ("int", "bool"):
            folded = ConstEval(self.index).value(init[0])
            if folded is not None:
                return K.Const(folded, typ)
        value = self.fold(self.expr_pure(init[0]))
        if value is None:
            return None
        return K.Const(value, typ)

    def function_number(self, func_id: str) -> int:
        """The number of a device function as a function-pointer value (0 is NULL)."""
        names = sorted(self.address_taken())
        func = self.index.function(func_id)
        key = str(func.get("id")) if func is not None else func_id
        return names.index(key) + 1 if key in names else len(names) + 1

    def address_taken(self) -> list[str]:
        """Ids of the device functions (with a body) whose address the file takes anywhere:
        the targets a call through a function pointer may reach."""
        cached = getattr(self.unit, "_address_taken", None)
        if cached is not None:
            return list(cached)
        callees: set[int] = set()
        taken: set[str] = set()
        bodiless: dict[int, str] = {}  # by number of parameters: a name
        for n in tree.walk(self.unit.tu):
            if tree.kind(n) in ("CallExpr", "CXXMemberCallExpr", "CXXOperatorCallExpr") and tree.children(n):
                callees.add(id(peel(tree.children(n)[0])))
            elif tree.kind(n) == "DeclRefExpr" and id(n) not in callees:
                ref = n.get("referencedDecl") or {}
                if ref.get("kind") == "FunctionDecl":
                    func = self.index.function(ref.get("id"))
                    if func is not None and tree.body_of(func) is not None and \
                            tree.has_attr(func, "CUDADeviceAttr"):
                        taken.add(str(func["id"]))
                    elif func is not None and tree.body_of(func) is None:
                        bodiless.setdefault(len(tree.params_of(func)), str(func.get("name", "?")))
        ordered = sorted(taken, key=lambda f: (self.index.qualified_name(self.index.by_id[f]), f))
        self.unit._address_taken = ordered  # type: ignore[attr-defined]
        self.unit._address_taken_bodiless = bodiless  # type: ignore[attr-defined]
        return ordered

    def bodiless_target(self, nargs: int) -> str | None:
        """A function with no body here whose address the file takes, of ``nargs`` parameters
        (``f = cos``): a call through a pointer may reach it, and what it does is unknown."""
        self.address_taken()
        found: dict[int, str] = self.unit._address_taken_bodiless  # type: ignore[attr-defined]
        return found.get(nargs)

    # ------------------------------------------------------------------ members

    def size_of(self, node: Node) -> int:
        """``sizeof`` in bytes under the CUDA ABI (:func:`kpl.ctypes.sizeof`)."""
        arg = node.get("argType", {}).get("desugaredQualType") or node.get("argType", {}).get("qualType")
        if arg is None:
            inner = tree.children(node)[0]
            arg = tree.qual_type(peel(inner))
        base, dims = self.types.split_array(str(arg))
        typ = self.ctype(base, node) if dims else self.ctype(str(arg), node)
        count = 1
        for d in dims:
            if d is None:
                raise self.error("unsupported: sizeof an array of unknown extent", node)
            count *= d
        size = sizeof(typ)
        if size is None:
            raise self.error(f"unsupported: sizeof '{arg}' (no byte layout for it)", node)
        return size * count

    def expr_UnaryExprOrTypeTraitExpr(self, node: Node, scope: Scope, pre: list[K.Stmt]) -> K.Expr:
        name = node.get("name")
        if name == "sizeof":
            return K.Const(self.size_of(node), K.ULONG)
        if name in ("alignof", "_Alignof", "__alignof"):
            typ = self.ctype(str(node.get("argType", {}).get("qualType", "int")), node)
            from kpl.ctypes import alignof

            return K.Const(alignof(typ) or 1, K.ULONG)
        raise self.error(f"unsupported: {name}", node)

    def expr_SizeOfPackExpr(self, node: Node, scope: Scope, pre: list[K.Stmt]) -> K.Expr:
        """``sizeof...(Ts)``: the length of that pack in the instantiation being translated."""
        func = self.index.get(self.call_stack[-1])
        args = [a for a in tree.children(func) if tree.kind(a) == "TemplateArgument"] if func else []
        template = self.index.template_of.get(self.call_stack[-1])
        params = [p for p in tree.children(template) if tree.kind(p).endswith("ParmDecl")
                  and tree.kind(p) != "ParmVarDecl"] if template is not None else []
        for n, arg in enumerate(args):
            if arg.get("isPack") and (n >= len(params) or params[n].get("name") == node.get("name")):
                return K.Const(len(tree.children(arg)), self.type_of(node))
        raise self.error(f"unsupported: sizeof...({node.get('name')}) outside its instantiation", node)

    def expr_ArraySubscriptExpr(self, node: Node, scope: Scope, pre: list[K.Stmt]) -> K.Expr:
        mem, index, view = self.element(node, scope, pre)
        return self.load(mem, index, None, view)

    def expr_UnaryOperator(self, node: Node, scope: Scope, pre: list[K.Stmt]) -> K.Expr:
        op = str(node.get("opcode"))
        operand_node = tree.children(node)[0]
        if op in ("++", "--"):
            ident = decl_id(operand_node)
            found = scope.lookup(ident) if ident else None
            if isinstance(found, (PointerBinding, DynPointer)):
                raise self.error("unsupported: pointer increment inside an expression", node)
            target = self.lvalue(operand_node, scope, pre)
            current = self.read_lvalue(target)
            delta = K.Binary("+" if op == "++" else "-", current, K.Const(1), current.type)
            if node.get("isPostfix"):
                tmp = self.temp(current.type)
                pre.append(K.Decl(tmp, current, label=self.label()))
                pre.append(K.Assign(target, delta, label=self.label()))
                return tmp
            pre.append(K.Assign(target, delta, label=self.label()))
            return self.read_lvalue(target)
        if op == "*":
            binding = self.pointer(operand_node, scope)
            if binding is None:
                this = self.this_stack[-1] if self.this_stack else None
                if tree.kind(peel(operand_node)) == "CXXThisExpr" and this is not None:
                    return self.read_lvalue(self.lvalue(node, scope, pre))
                var = self.pointed_var(operand_node, scope)
                if var is not None:
                    return var
                raise self.error("unsupported: dereference of an unknown pointer", node)
            return self.deref(binding)
        if op == "&":
            inner = peel(operand_node)
            ref = inner.get("referencedDecl") or {}
            if tree.kind(inner) == "DeclRefExpr" and ref.get("kind") in ("FunctionDecl", "CXXMethodDecl"):
                return K.Const(self.function_number(str(ref.get("id"))), K.INT)
            raise self.error("unsupported: address-of outside an atomic call or pointer "
                             "initialiser", node)
        if op == "__extension__":
            return self.expr(operand_node, scope, pre)
        operand = self.expr(operand_node, scope, pre)
        if op == "+":
            return operand
        why = invalid_operands(op, operand.type)
        if why is not None:
            raise self.error(why, node)
        return K.Unary(op, operand, unary_type(op, operand.type))

    def expr_BinaryOperator(self, node: Node, scope: Scope, pre: list[K.Stmt]) -> K.Expr:
        op = str(node.get("opcode"))
        left_node, right_node = tree.children(node)[:2]
        if op == "=":
            stmts = self.assignment(node, scope)
            pre.extend(stmts)
            last = stmts[-1] if stmts else None
            if isinstance(last, K.Assign):
                return self.read_lvalue(last.target)
            return K.Const(0)
        if op == ",":
            pre.extend(self.effects(left_node, scope))
            return self.expr(right_node, scope, pre)
        if op in ("&&", "||"):
            # reads on the right happen only if the left does not decide: keep them in the
            # expression (no hoisting of side effects past the short circuit)
            right_pre: list[K.Stmt] = []
            left = self.expr(left_node, scope, pre)
            right = self.expr(right_node, scope, right_pre)
            if right_pre:
                raise self.error(f"unsupported: side effect on the right of '{op}'", right_node)
            return self.binary(op, left, right, node)
        if op in ("-",) and self._is_pointerish(left_node) and self._is_pointerish(right_node):
            if self.is_value(left_node, scope) or self.is_value(right_node, scope):
                return self.compare_pointers("-", left_node, right_node, scope, pre) or K.Const(0)
            a, b = self.pointer(left_node, scope), self.pointer(right_node, scope)
            if a is None or b is None or a.mem != b.mem or a.view != b.view:
                raise self.error("unsupported: difference of pointers into different arrays", node)
            return K.Binary("-", a.offset, b.offset, K.LONG)
        if op in ("==", "!=", "<", ">", "<=", ">=") and self._is_pointerish(left_node) \
                and self._is_pointerish(right_node):
            null = self.null_test(node, scope) if op in ("==", "!=") else None
            if null is not None:  # ``p == NULL`` as a value: as in a condition
                return null
            compared = self.compare_pointers(op, left_node, right_node, scope, pre)
            if compared is not None:
                return compared
            a, b = self.pointer(left_node, scope), self.pointer(right_node, scope)
            if a is None or b is None or a.mem != b.mem:
                raise self.error("unsupported: comparison of pointers into different arrays", node)
            return K.Binary(op, a.offset, b.offset, K.BOOL)
        left = self.expr(left_node, scope, pre)
        right = self.expr(right_node, scope, pre)
        result = self.binary(op, left, right, node)
        typ = self.type_of(node)
        return K.Binary(op, left, right, typ) if typ.kind in ("int", "float", "bool") else result

    def expr_CompoundAssignOperator(self, node: Node, scope: Scope, pre: list[K.Stmt]) -> K.Expr:
        stmts = self.assignment(node, scope)
        pre.extend(stmts)
        last = stmts[-1] if stmts else None
        if isinstance(last, K.Assign):
            return self.read_lvalue(last.target)
        return K.Const(0)

    def expr_ConditionalOperator(self, node: Node, scope: Scope, pre: list[K.Stmt]) -> K.Expr:
        cond_node, then_node, else_node = tree.children(node)[:3]
        probe: list[K.Stmt] = []
        cond = self.expr(cond_node, scope, probe)
        then_pre: list[K.Stmt] = []
        else_pre: list[K.Stmt] = []
        then = self.expr(then_node, scope, then_pre)
        els = self.expr(else_node, scope, else_pre)
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
            stmts.append(K.Assign(result, self.convert(value, typ), label=self.label()))
            for stmt in stmts:
                stmt.placeable, stmt.synthetic = False, True
                stmt.span = stmt.span or self.span_of(node)
            arms.append(K.Block(stmts, self.label(), self.label(), K.BlockSource(),
                                placeable_start=False))
        pre.append(K.If(cond, arms[0], arms[1], label=arms[0].label, placeable=False,
                        synthetic=True))
        return result

    # ------------------------------------------------------------------ conversions

    def expr_ImplicitCastExpr(self, node: Node, scope: Scope, pre: list[K.Stmt]) -> K.Expr:
        cast = node.get("castKind")
        inner = tree.children(node)[0]
        if cast in ("LValueToRValue", "NoOp", "ArrayToPointerDecay", "FunctionToPointerDecay",
                    "UncheckedDerivedToBase", "DerivedToBase", "ToVoid", "AddressSpaceConversion",
                    "UserDefinedConversion", "ConstructorConversion", "AtomicToNonAtomic",
                    "NonAtomicToAtomic"):
            return self.expr(inner, scope, pre)
        if cast == "PointerToBoolean":
            test = self.null_test(node, scope)
            if test is not None:
                return test
            raise self.error("unsupported: a pointer as a truth value", node)
        if cast in ("NullToPointer", "IntegralToPointer"):
            return K.Const(0)
        return self.convert(self.expr(inner, scope, pre), self.type_of(node))

    def _explicit_cast(self, node: Node, scope: Scope, pre: list[K.Stmt]) -> K.Expr:
        typ = self.type_of(node)
        operand = tree.children(node)[0]
        if typ.kind == "int" and self._is_pointerish(operand) and \
                not self.types.is_function_pointer(tree.qual_type(peel(operand))):
            address = self.address_value(operand, scope, pre, typ)
            if address is not None:
                return address
        value = self.expr(tree.children(node)[0], scope, pre)
        return self.convert(value, typ)

    expr_CStyleCastExpr = _explicit_cast
    expr_CXXStaticCastExpr = _explicit_cast
    expr_CXXFunctionalCastExpr = _explicit_cast
    expr_CXXConstCastExpr = _explicit_cast
    expr_CXXReinterpretCastExpr = _explicit_cast

    def _transparent(self, node: Node, scope: Scope, pre: list[K.Stmt]) -> K.Expr:
        return self.expr(tree.children(node)[-1], scope, pre)

    expr_ParenExpr = _transparent
    expr_ExprWithCleanups = _transparent
    expr_MaterializeTemporaryExpr = _transparent
    expr_CXXBindTemporaryExpr = _transparent
    expr_SubstNonTypeTemplateParmExpr = _transparent
    expr_CXXDefaultArgExpr = _transparent
    expr_CXXDefaultInitExpr = _transparent

    def expr_InitListExpr(self, node: Node, scope: Scope, pre: list[K.Stmt]) -> K.Expr:
        typ = self.type_of(node)
        parts = tuple(self.expr(e, scope, pre) for e in tree.children(node))
        if typ.kind != "vec":
            return parts[0] if parts else K.Const(0, typ)
        return K.VecInit(typ, parts)

    def expr_CXXConstructExpr(self, node: Node, scope: Scope, pre: list[K.Stmt]) -> K.Expr:
        """A copy (one argument of the same type) is its argument's value; a vector type built
        from its components (``dim3 b(16, 16)``) is that vector."""
        typ = self.type_of(node)
        args = [a for a in tree.children(node) if tree.kind(a) != "CXXDefaultArgExpr"]
        defaults = [a for a in tree.children(node) if tree.kind(a) == "CXXDefaultArgExpr"]
        if len(args) == 1 and self.type_of(peel(args[0])) == typ:
            return self.expr(args[0], scope, pre)
        if typ.kind == "vec" and typ.elem is not None and not typ.parts:
            parts = [self.convert(self.expr(a, scope, pre), typ.elem) for a in args]
            parts += [K.Const(1 if typ.name == "dim3" else 0, typ.elem)] * (len(defaults))
            return K.VecInit(typ, tuple(parts[: len(typ.fields)]))
        built = self.construct_value(node, scope, pre)
        if built is not None:
            return built
        if not args:
            return self.expr_ImplicitValueInitExpr(node, scope, pre)
        raise self.error(f"unsupported: constructor of '{typ}' with arguments", node)

    def construct_value(self, node: Node, scope: Scope, pre: list[K.Stmt]) -> K.Expr | None:
        """A value built by a user constructor: :mod:`kpl.frontend.objects`."""
        raise NotImplementedError

    expr_CXXTemporaryObjectExpr = expr_CXXConstructExpr

    def expr_ImplicitValueInitExpr(self, node: Node, scope: Scope, pre: list[K.Stmt]) -> K.Expr:
        typ = self.type_of(node)
        if typ.kind == "vec":
            return K.VecInit(typ, tuple(K.Const(0, typ.elem or K.FLOAT) for _ in typ.fields))
        return K.Const(0.0 if typ.kind == "float" else 0, typ)

    def expr_CXXScalarValueInitExpr(self, node: Node, scope: Scope, pre: list[K.Stmt]) -> K.Expr:
        return self.expr_ImplicitValueInitExpr(node, scope, pre)

    def fold(self, e: K.Expr) -> int | float | None:
        """The value of a constant KPL expression (``blockDim`` under the launch), or None."""
        if isinstance(e, K.Const):
            return e.value if not isinstance(e.value, bool) else int(e.value)
        if isinstance(e, K.Builtin):
            table = {"blockDim": self.launch.block_dim, "gridDim": self.launch.grid_dim}
            if e.name in table:
                return table[e.name]["xyz".index(e.dim)]
            return None
        if isinstance(e, K.Cast):
            v = self.fold(e.operand)
            if v is None:
                return None
            return int(v) if e.type.kind == "int" else v
        if isinstance(e, K.Unary):
            v = self.fold(e.operand)
            if v is None:
                return None
            return {"-": lambda: -v, "+": lambda: v, "~": lambda: ~int(v),
                    "!": lambda: int(not v)}[e.op]()
        if isinstance(e, K.Binary):
            a, b = self.fold(e.left), self.fold(e.right)
            if a is None or b is None:
                return None
            ops = {"+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b,
                   "/": lambda: int(a / b) if isinstance(a, int) and isinstance(b, int) else a / b,
                   "%": lambda: int(a) - int(b) * int(int(a) / int(b)),
                   "<<": lambda: int(a) << int(b), ">>": lambda: int(a) >> int(b),
                   "&": lambda: int(a) & int(b), "|": lambda: int(a) | int(b),
                   "^": lambda: int(a) ^ int(b), "<": lambda: int(a < b), ">": lambda: int(a > b),
                   "<=": lambda: int(a <= b), ">=": lambda: int(a >= b),
                   "==": lambda: int(a == b), "!=": lambda: int(a != b),
                   "&&": lambda: int(bool(a) and bool(b)), "||": lambda: int(bool(a) or bool(b))}
            try:
                return ops[e.op]()
            except (KeyError, ZeroDivisionError):
                return None
        if isinstance(e, K.Cond):
            c = self.fold(e.cond)
            if c is None:
                return None
            return self.fold(e.then if c else e.els)
        return None


__all__ = ["ExprsTranslation", "int_type", "BUILTIN_DIMS", "WARP_SIZE"]
