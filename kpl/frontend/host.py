"""The host code's launches of a kernel, read from clang's AST (issue 27: no guessed launch).

clang parses the host functions of a CUDA file too; a launch ``k<<<grid, block, smem,
stream>>>(args)`` is a ``CUDAKernelCallExpr`` whose children are the callee, the call of
``cudaConfigureCall(grid, block, smem, stream)`` and the arguments (``cudaLaunchKernel`` and
``cudaLaunchCooperativeKernel`` name the kernel, grid and block as their first three
arguments; ``cudaLaunchKernelEx(&config, k, args...)`` names it second, its sizes in the
``config`` struct, taken as unknown).  A launch by ``cudaLaunchCooperativeKernel``, or by
``cudaLaunchKernelEx`` in a function that names ``cudaLaunchAttributeCooperative``, is marked
``cooperative`` (a grid barrier is legal under it).  Because clang has
already expanded the macros, instantiated the templates (``run<64>`` gives a launch with
``B = 64``) and resolved the names, a launch dimension here is an expression tree to evaluate:

* a constant (literals, macros, ``constexpr`` through :class:`ConstEval`, ``const`` and
  never-written locals, template arguments, ``dim3`` variables, one-line helper functions
  such as ``divUp(n, 256)``);
* a *relation* to the kernel's scalar parameters, where it depends on a host variable that is
  passed unchanged to the kernel (``dim3 grid((n + 255) / 256); k<<<grid, 256>>>(a, n)``
  gives ``gridDim.x == (n + 255) / 256`` with ``n`` the kernel's parameter);
* unknown (symbolic: the verifier takes every value CUDA allows).

A host variable is trusted only when the function never writes it after its declaration
(every use is a read: an lvalue-to-rvalue conversion or a ``const`` reference); a written
one is unknown.  Launches inside a template's uninstantiated pattern are skipped (each
instantiation has its own).  The arguments give facts on the scalar parameters as well
(``n == 1024`` when the call passes 1024).

Why one piece (over 400 lines): finding the launches, the trust rules for host variables and
the evaluator that applies them are one reading of the host code; split, each part would
import the others.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from kpl import ast as K
from kpl.frontend import tree
from kpl.frontend.consteval import ConstEval
from kpl.frontend.tree import Node
from kpl.launchfacts import HostDim, HostLaunch

if TYPE_CHECKING:
    from kpl.frontend.state import TranslatorBase, Unit

_FUNCS = {"FunctionDecl", "CXXMethodDecl", "CXXConstructorDecl", "CXXDestructorDecl", "CXXConversionDecl"}
_TRANSPARENT = {"ParenExpr", "ExprWithCleanups", "MaterializeTemporaryExpr", "CXXBindTemporaryExpr",
                "ConstantExpr", "CXXDefaultArgExpr", "FullExpr"}
_CASTS = {"ImplicitCastExpr", "CStyleCastExpr", "CXXStaticCastExpr", "CXXFunctionalCastExpr"}
_ARITH = {"+", "-", "*", "/", "%", "<<", ">>", "&", "|", "^"}
_CMP = {"<", ">", "<=", ">=", "==", "!="}
#: how deep one-line helpers (``divUp``) are followed
_CALL_DEPTH = 8


class _Unknown(Exception):
    """The value is not known at compile time nor related to the kernel's parameters."""


@dataclass
class _Function:
    """What one host function lets us trust: its local declarations and the variables it may
    write after declaring them."""

    decls: dict[str, Node] = field(default_factory=dict)
    written: set[str] = field(default_factory=set)


def _calls(unit: Unit) -> list[tuple[Node, Node]]:
    """Every ``CUDAKernelCallExpr`` outside template patterns, with its enclosing function."""
    patterns = unit.index.patterns
    out: list[tuple[Node, Node]] = []
    stack: list[tuple[Node, Node | None]] = [(unit.tu, None)]
    while stack:
        node, func = stack.pop()
        k = tree.kind(node)
        if k in _FUNCS or k == "FunctionTemplateDecl" or k == "ClassTemplateDecl":
            if str(node.get("id")) in patterns:
                continue
            if k in _FUNCS:
                func = node
        if func is not None and (k == "CUDAKernelCallExpr" or (
                k == "CallExpr" and _callee_name(node) in RUNTIME_LAUNCHES)):
            out.append((node, func))
        for c in reversed(tree.children(node)):
            stack.append((c, func))
    return out


#: the runtime's launch calls: ``cudaLaunchKernel((void *)k, grid, block, args, smem, stream)``,
#: and ``cudaLaunchKernelEx(&config, k, args...)`` (:data:`EX_LAUNCH`)
EX_LAUNCH = "cudaLaunchKernelEx"
RUNTIME_LAUNCHES = ("cudaLaunchKernel", "cudaLaunchCooperativeKernel", EX_LAUNCH)
#: the launch attribute that makes a ``cudaLaunchKernelEx`` launch cooperative
COOPERATIVE_ATTRIBUTE = "cudaLaunchAttributeCooperative"


def _callee_name(call: Node) -> str | None:
    inner = tree.children(call)
    ref = _strip(inner[0]) if inner else {}
    return (ref.get("referencedDecl") or {}).get("name") if tree.kind(ref) == "DeclRefExpr" else None


def _launch_parts(call: Node) -> tuple[str | None, Node | None, Node | None, list[Node]] | None:
    """(kernel decl id, grid, block, arguments) of a launch: ``k<<<grid, block>>>(args)``, or a
    runtime launch call, whose kernel is its first argument (behind a ``(void *)`` cast) and
    whose arguments are an array of addresses (not read: no facts on the parameters); for
    ``cudaLaunchKernelEx`` the second, its sizes (in the config struct) None: unknown."""
    inner = tree.children(call)
    if tree.kind(call) == "CUDAKernelCallExpr":
        config = tree.children(inner[1])[1:] if len(inner) >= 2 else []  # cudaConfigureCall(…)
        return (_ref_id(inner[0]), config[0], config[1], inner[2:]) if len(config) >= 2 else None
    ex = _callee_name(call) == EX_LAUNCH
    if len(inner) < (3 if ex else 4):
        return None
    target = inner[2] if ex else inner[1]
    while tree.kind(target) != "DeclRefExpr" and tree.children(target) and (
            tree.kind(target).endswith("CastExpr") or tree.kind(target) in _TRANSPARENT
            or (tree.kind(target) == "UnaryOperator" and target.get("opcode") == "&")):
        target = tree.children(target)[0]
    if ex:
        return _ref_id(target), None, None, []
    return _ref_id(target), inner[2], inner[3], []


def _names_cooperative(func: Node) -> bool:
    """Does ``func`` name ``cudaLaunchAttributeCooperative`` (the attribute of a cooperative
    ``cudaLaunchKernelEx``)?"""
    stack = [func]
    while stack:
        node = stack.pop()
        if tree.kind(node) == "DeclRefExpr" and \
                (node.get("referencedDecl") or {}).get("name") == COOPERATIVE_ATTRIBUTE:
            return True
        stack.extend(tree.children(node))
    return False


def _cooperative(call: Node, host: Node) -> bool:
    """Is this launch cooperative (see the module docstring)?"""
    callee = _callee_name(call) if tree.kind(call) == "CallExpr" else None
    return callee == "cudaLaunchCooperativeKernel" or (callee == EX_LAUNCH and _names_cooperative(host))


def _strip(node: Node) -> Node:
    while tree.kind(node) in _TRANSPARENT | {"ImplicitCastExpr"} and tree.children(node):
        if tree.kind(node) == "ImplicitCastExpr" and node.get("castKind") not in (
                "LValueToRValue", "NoOp", "ConstructorConversion", "UncheckedDerivedToBase",
                "FunctionToPointerDecay"):
            break
        node = tree.children(node)[-1 if tree.kind(node) == "SubstNonTypeTemplateParmExpr" else 0]
    return node


def _ref_id(node: Node) -> str | None:
    node = _strip(node)
    if tree.kind(node) != "DeclRefExpr":
        return None
    return str((node.get("referencedDecl") or {}).get("id"))


def _scan_function(func: Node) -> _Function:
    """The locals of ``func`` and those it may write (see the module docstring)."""
    info = _Function()
    for p in tree.params_of(func):
        info.decls[str(p.get("id"))] = p
    body = tree.body_of(func)
    if body is None:
        return info
    stack: list[tuple[Node, Node | None, Node | None]] = [(body, None, None)]
    while stack:
        node, parent, grand = stack.pop()
        k = tree.kind(node)
        if k == "VarDecl":
            info.decls[str(node.get("id"))] = node
        elif k == "DeclRefExpr":
            rid = str((node.get("referencedDecl") or {}).get("id"))
            if not _is_read(parent, grand):
                info.written.add(rid)
        for c in tree.children(node):
            stack.append((c, node, parent))
    return info


def _is_read(parent: Node | None, grand: Node | None) -> bool:
    """Whether a ``DeclRefExpr`` under ``parent`` (under ``grand``) only reads the variable."""
    if parent is None:
        return False
    pk = tree.kind(parent)
    if pk == "ImplicitCastExpr":
        cast = parent.get("castKind")
        if cast in ("LValueToRValue", "FunctionToPointerDecay", "ArrayToPointerDecay"):
            return True
        return cast == "NoOp" and tree.qual_type(parent).startswith("const ")
    if pk == "MemberExpr" and grand is not None:  # v.x read
        return tree.kind(grand) == "ImplicitCastExpr" and grand.get("castKind") == "LValueToRValue"
    return False


def _is_dim3(node: Node) -> bool:
    typ = tree.qual_type(node).replace("const ", "").replace("struct ", "").strip()
    return typ in ("dim3", "uint3")


class _Eval:
    """Evaluates the launch expressions of one ``CUDAKernelCallExpr``."""

    def __init__(self, unit: Unit, param_of: dict[str, K.Var], info: _Function) -> None:
        self.unit = unit
        self.const = ConstEval(unit.index)
        self.param_of = param_of
        self.info = info
        self.depth = 0

    def _type(self, node: Node) -> K.CType:
        text = tree.qual_type(node)
        try:
            typ = self.unit.types.ctype(text)
        except Exception:  # noqa: BLE001 - a type the table cannot read is not an integer we model
            raise _Unknown from None
        if typ.kind != "int":
            raise _Unknown
        return typ

    def _decl(self, rid: str) -> Node | None:
        return self.info.decls.get(rid) or self.unit.index.get(rid)

    def _init(self, decl: Node) -> Node | None:
        inits = [c for c in tree.children(decl) if not tree.kind(c).endswith("Attr")
                 and tree.kind(c) not in ("TemplateArgument",)]
        return inits[-1] if inits and tree.kind(decl) == "VarDecl" else None

    def _trusted(self, rid: str, decl: Node) -> bool:
        """A variable whose declared value is its value at the launch."""
        if rid in self.info.written:
            return False
        if rid in self.info.decls:
            return True
        # a global: only a const one cannot have been written by another function
        typ = tree.qual_type(decl)
        return bool(decl.get("constexpr")) or typ.startswith("const ")

    def value(self, node: Node, env: dict[str, int | K.Expr]) -> int | K.Expr:
        """The integer value of ``node``: a constant or an expression over kernel parameters."""
        folded = self.const.value(node) if not env else None
        if folded is not None:
            return folded
        k = tree.kind(node)
        inner = tree.children(node)
        if k in _TRANSPARENT or k == "SubstNonTypeTemplateParmExpr":
            if not inner:
                raise _Unknown
            return self.value(inner[-1] if k == "SubstNonTypeTemplateParmExpr" else inner[0], env)
        if k in _CASTS:
            if not inner:
                raise _Unknown
            v = self.value(inner[-1], env)
            typ = self._type(node)
            if isinstance(v, int):
                return _wrap(v, typ)
            return v if _same(v.type, typ) else K.Cast(typ, v)
        if k in ("IntegerLiteral", "CharacterLiteral"):
            return int(node["value"])
        if k == "DeclRefExpr":
            return self._ref(node, env)
        if k == "MemberExpr" and inner and node.get("name") in ("x", "y", "z") and _is_dim3(inner[0]):
            dims = self.dim3(inner[0], env)
            got = dims["xyz".index(str(node["name"]))]
            if got is None:
                raise _Unknown
            return got
        if k == "BinaryOperator" and node.get("opcode") in _ARITH | _CMP:
            op = str(node["opcode"])
            a, b = self.value(inner[0], env), self.value(inner[1], env)
            typ = K.INT if op in _CMP else self._type(node)  # a comparison is a C++ bool: 0 or 1
            if isinstance(a, int) and isinstance(b, int):
                return _fold(op, a, b, typ)
            return K.Binary(op, _expr(a, self._type(inner[0])), _expr(b, self._type(inner[1])),
                            K.BOOL if op in _CMP else typ)
        if k == "ConditionalOperator":
            c = self.value(inner[0], env)
            if isinstance(c, int):
                return self.value(inner[1] if c else inner[2], env)
            typ = self._type(node)
            return K.Cond(c, _expr(self.value(inner[1], env), typ), _expr(self.value(inner[2], env), typ), typ)
        if k == "CallExpr":
            return self._call(node, env)
        raise _Unknown

    def _ref(self, node: Node, env: dict[str, int | K.Expr]) -> int | K.Expr:
        ref = node.get("referencedDecl") or {}
        rid = str(ref.get("id"))
        if rid in env:
            return env[rid]
        decl = self._decl(rid)
        if decl is None or not self._trusted(rid, decl):
            raise _Unknown
        init = self._init(decl)
        if init is not None:
            try:
                v = self.value(init, {})
                if isinstance(v, int):
                    return _wrap(v, self._type(decl))
            except _Unknown:
                pass
        if rid in self.param_of:
            return self.param_of[rid]
        if init is not None:
            v = self.value(init, {})
            return v if isinstance(v, int) or _same(v.type, self._type(decl)) else K.Cast(self._type(decl), v)
        raise _Unknown

    def _call(self, node: Node, env: dict[str, int | K.Expr]) -> int | K.Expr:
        """A one-line helper (``return (a + b - 1) / b;``), its parameters bound to the values
        of the arguments."""
        inner = tree.children(node)
        callee = _strip(inner[0]) if inner else {}
        while tree.kind(callee) in _CASTS and tree.children(callee):
            callee = tree.children(callee)[0]
        func = self.unit.index.function(str((callee.get("referencedDecl") or {}).get("id")))
        body = tree.body_of(func) if func is not None else None
        if func is None or body is None or self.depth >= _CALL_DEPTH:
            raise _Unknown
        stmts = tree.children(body)
        if len(stmts) != 1 or tree.kind(stmts[0]) != "ReturnStmt" or not tree.children(stmts[0]):
            raise _Unknown
        params = tree.params_of(func)
        args = inner[1:]
        if len(params) != len(args):
            raise _Unknown
        frame = {str(p.get("id")): self.value(a, env) for p, a in zip(params, args, strict=True)}
        self.depth += 1
        try:
            return self.value(tree.children(stmts[0])[0], frame)
        finally:
            self.depth -= 1

    def dim3(self, node: Node, env: dict[str, int | K.Expr]) -> tuple[HostDim, HostDim, HostDim]:
        """A launch argument as ``dim3``: ``dim3(a, b)``, a ``dim3`` variable, ``{a, b}`` or an
        integer (``x``, 1, 1).  Each component on its own: one unknown does not hide the others."""
        k = tree.kind(node)
        inner = tree.children(node)
        if k in _TRANSPARENT or (k in _CASTS and _is_dim3(node) and inner and _is_dim3(inner[0])):
            return self.dim3(inner[0], env) if inner else (None, None, None)
        if not _is_dim3(node):
            return (self._component(node, env), 1, 1)
        if k in ("CXXConstructExpr", "CXXTemporaryObjectExpr", "InitListExpr"):
            if len(inner) == 1 and _is_dim3(inner[0]):
                return self.dim3(inner[0], env)
            if len(inner) == 1 and k != "InitListExpr" and tree.kind(_strip(inner[0])) != "DeclRefExpr" \
                    and not _is_int(inner[0]):
                return (None, None, None)
            comps: list[HostDim] = [self._component(c, env) for c in inner[:3]]
            comps += [1] * (3 - len(comps))
            return (comps[0], comps[1], comps[2])
        if k in _CASTS and inner:  # ConstructorConversion of an integer
            return self.dim3(inner[0], env)
        if k == "DeclRefExpr":
            rid = str((node.get("referencedDecl") or {}).get("id"))
            decl = self._decl(rid)
            if decl is None or not self._trusted(rid, decl):
                return (None, None, None)
            init = self._init(decl)
            return self.dim3(init, env) if init is not None else (1, 1, 1)  # dim3 g; is (1, 1, 1)
        return (None, None, None)

    def _component(self, node: Node, env: dict[str, int | K.Expr]) -> HostDim:
        try:
            return self.value(node, env)
        except _Unknown:
            return None


def _is_int(node: Node) -> bool:
    typ = tree.qual_type(node)
    return "int" in typ or "long" in typ or "short" in typ or "size_t" in typ


def _same(a: K.CType, b: K.CType) -> bool:
    return (a.kind, a.bits, a.signed) == (b.kind, b.bits, b.signed)


def _wrap(v: int, typ: K.CType) -> int:
    """``v`` converted to the integer type ``typ`` (C's modular conversion)."""
    bits = typ.bits or 32
    v &= (1 << bits) - 1
    if typ.signed and v >= 1 << (bits - 1):
        v -= 1 << bits
    return v


def _fold(op: str, a: int, b: int, typ: K.CType) -> int:
    if op in ("/", "%") and b == 0:
        raise _Unknown
    if op == "/":
        r = int(a / b)
    elif op == "%":
        r = a - b * int(a / b)
    elif op == "<<":
        r = a << b
    elif op == ">>":
        r = a >> b
    else:
        r = {"+": a + b, "-": a - b, "*": a * b, "&": a & b, "|": a | b, "^": a ^ b,
             "<": int(a < b), ">": int(a > b), "<=": int(a <= b), ">=": int(a >= b),
             "==": int(a == b), "!=": int(a != b)}[op]
    return _wrap(r, typ)


def _expr(v: int | K.Expr, typ: K.CType) -> K.Expr:
    return K.Const(v, typ) if isinstance(v, int) else v


def launches_of(translator: TranslatorBase, func: Node, kernel: K.Kernel,
                calls: list[tuple[Node, Node]]) -> list[HostLaunch]:
    """The launches of ``kernel`` (translated from ``func``) among ``calls`` (:func:`host_calls`)."""
    target = str(func.get("id"))
    index = translator.unit.index

    def matches(callee: str | None) -> bool:
        return callee == target or index.function(callee) is func

    return _launches(translator.unit, kernel, calls, matches, translator.where)


def foreign_launches(unit: Unit, kernel: K.Kernel) -> list[HostLaunch]:
    """The launches of ``kernel`` in ANOTHER translation unit (a file of the compilation
    database that declares the kernel and launches it): matched by the kernel's name and
    number of parameters; only launches written in that unit's own file."""
    base = kernel.name.split("<", 1)[0]
    index = unit.index

    def matches(callee: str | None) -> bool:
        decl = index.function(callee)
        return decl is not None and decl.get("name") == base and \
            len(tree.params_of(decl)) == len(kernel.params) and tree.has_attr(decl, "CUDAGlobalAttr")

    def where(node: Node) -> tuple[str, int | None, int | None]:
        loc = tree.location(node.get("range", {}).get("begin"))
        if loc is None or loc.get("file") != unit.clang_main:
            return unit.path, None, None
        line, col = unit.source.line_col(unit.position.char(int(loc["offset"])))
        return unit.path, line, col

    return [h for h in _launches(unit, kernel, host_calls(unit), matches, where) if h.line]


def _launches(unit: Unit, kernel: K.Kernel, calls: list[tuple[Node, Node]], matches: Callable[[str | None], bool],
              where: Callable[[Node], tuple[str, int | None, int | None]]) -> list[HostLaunch]:
    out: list[HostLaunch] = []
    scanned: dict[str, _Function] = {}
    for call, host in calls:
        parts = _launch_parts(call)
        if parts is None or not matches(parts[0]):
            continue
        _callee, grid_node, block_node, args = parts
        hid = str(host.get("id"))
        info = scanned.get(hid)
        if info is None:
            info = scanned[hid] = _scan_function(host)
        param_of: dict[str, K.Var] = {}
        for p, a in zip(kernel.params, args, strict=False):
            rid = _ref_id(a)
            decl = info.decls.get(rid or "")
            if p.var is None or rid is None or decl is None or rid in info.written:
                continue
            ev = _Eval(unit, {}, info)
            try:
                if _same(ev._type(decl), p.var.type):
                    param_of[rid] = p.var
            except _Unknown:
                continue
        ev = _Eval(unit, param_of, info)
        unknown: tuple[HostDim, HostDim, HostDim] = (None, None, None)
        grid = unknown if grid_node is None else _positive(ev.dim3(grid_node, {}))
        block = unknown if block_node is None else _positive(ev.dim3(block_node, {}))
        facts: list[K.Expr] = []
        for p, a in zip(kernel.params, args, strict=False):
            if p.var is None or p.var.type.kind != "int":
                continue
            try:
                v = ev.value(a, {})
            except _Unknown:
                continue
            if isinstance(v, K.Var) and v == p.var:
                continue
            facts.append(K.Binary("==", p.var, _expr(v, p.var.type) if isinstance(v, int)
                                  else (v if _same(v.type, p.var.type) else K.Cast(p.var.type, v)), K.BOOL))
        file, line, col = where(call)
        out.append(HostLaunch(file, line or 0, col or 0, grid, block, tuple(facts),
                              _cooperative(call, host)))
    return out


def _positive(dims: tuple[HostDim, HostDim, HostDim]) -> tuple[HostDim, HostDim, HostDim]:
    """A constant dimension that is not a legal size (0, negative: a launch that fails) is
    taken as unknown rather than as a launch."""
    out = [None if isinstance(d, int) and d <= 0 else d for d in dims]
    return (out[0], out[1], out[2])


def host_calls(unit: Unit) -> list[tuple[Node, Node]]:
    """The launches of a translation unit (shared by its kernels)."""
    return _calls(unit)


__all__ = ["host_calls", "launches_of", "foreign_launches"]
