"""CUDA → KPL: walk the pycparser AST of a (lowered) CUDA file into KPL kernels.

The text-level work -- preprocessing, CUDA dialect and templates -- is done by
:mod:`kpl.preprocess`/:mod:`kpl.cuda` (:func:`kpl.preprocess.parse_cuda`).  This module takes
its ``FileAST`` and produces one :class:`kpl.ast.Kernel` per ``__global__`` function:

* every C statement becomes one placeable leaf (or compound statement).  Side effects that
  C hides inside expressions (``A[i++]``, a call to a ``__device__`` function) are made
  explicit as synthetic leaves *before* the statement, marked ``placeable=False`` so a barrier
  never lands between two halves of one C statement (DESIGN.md, "Labels");
* conditions that read memory are hoisted into synthetic leaves (Fig. 9's ``p := e``);
* ``__device__`` functions are inlined at the call site (recursion is an error);
* array indices are flattened, pointer variables resolved to (array, offset) pairs;
* every statement gets a :class:`Span` in the ORIGINAL text (via :class:`SourceText`) so
  the renderer can edit the user's file byte-exactly.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from typing import Any

from pycparser import c_ast

from kpl import ast as K
from kpl.errors import KplError
from kpl.spans import SourceText

# --------------------------------------------------------------------------- names

BARRIER_CALLS = {"__syncthreads", "barrier", "__barrier", "work_group_barrier"}
ATOMICS = {"atomicAdd", "atomicSub", "atomicExch", "atomicMin", "atomicMax", "atomicInc",
           "atomicDec", "atomicCAS", "atomicAnd", "atomicOr", "atomicXor",
           "atomic_add", "atomic_inc", "atomic_dec", "atomic_sub", "atomic_xchg",
           "atomic_min", "atomic_max", "atomic_or", "atomic_and", "atomic_xor"}
TEXTURE_FETCHES = {"tex1D", "tex2D", "tex3D", "tex1Dfetch", "tex2DLayered", "tex1DLayered"}
ASSUMPTIONS = {"__requires": "requires", "__assume": "assume"}
ANNOTATIONS = {"__ensures", "__invariant", "__global_invariant", "__assert", "__global_assert",
               "__implies", "__write_implies", "__read_implies", "__write_offset_bytes",
               "__read_offset_bytes", "__same_group", "__no_read", "__no_write", "__enabled",
               "__other_int", "__uniform_int", "__distinct_int", "__all", "__at_most_one",
               "__read", "__write", "__assert_decl", "__function_wide_invariant",
               "__candidate_invariant", "__non_temporal", "__global_requires"}
NAMED_BARRIERS = {"__kpl_bar_sync": "sync", "__kpl_bar_arrive": "arrive"}
BUILTIN_DIMS = {"threadIdx", "blockIdx", "blockDim", "gridDim"}
VECTOR_FIELDS = ("x", "y", "z", "w")
WARP_SIZE = 32

_INT_NAMES: dict[str, tuple[int, bool]] = {
    "char": (8, True), "signed char": (8, True), "unsigned char": (8, False),
    "short": (16, True), "unsigned short": (16, False),
    "int": (32, True), "signed": (32, True), "unsigned": (32, False),
    "long": (64, True), "unsigned long": (64, False),
    "long long": (64, True), "unsigned long long": (64, False),
    "size_t": (64, False), "uint": (32, False), "uchar": (8, False), "ushort": (16, False),
}


def _int_type(bits: int, signed: bool) -> K.CType:
    names = {(8, True): "char", (8, False): "unsigned char", (16, True): "short",
             (16, False): "unsigned short", (32, True): "int", (32, False): "unsigned int",
             (64, True): "long long", (64, False): "unsigned long long"}
    return K.CType("int", bits, signed, names.get((bits, signed), f"int{bits}"))


def _vector_type(name: str) -> K.CType | None:
    """CUDA vector types: ``float4`` → vec of float with fields x,y,z,w."""
    for base, elem in (("ulonglong", K.ULONG), ("longlong", K.LONG), ("uchar", _int_type(8, False)),
                       ("char", _int_type(8, True)), ("ushort", _int_type(16, False)),
                       ("short", _int_type(16, True)), ("uint", K.UINT), ("int", K.INT),
                       ("ulong", K.ULONG), ("long", K.LONG), ("float", K.FLOAT),
                       ("double", K.DOUBLE)):
        if name.startswith(base) and name[len(base):] in ("1", "2", "3", "4"):
            n = int(name[len(base):])
            return K.CType("vec", elem.bits, elem.signed, name, elem, VECTOR_FIELDS[:n])
    if name == "dim3":
        return K.CType("vec", 32, False, "dim3", K.UINT, ("x", "y", "z"))
    return None


def _token_at(text: str, pos: int) -> str:
    if pos >= len(text):
        return ""
    if text[pos].isalnum() or text[pos] == "_":
        end = pos
        while end < len(text) and (text[end].isalnum() or text[end] == "_"):
            end += 1
        return text[pos:end]
    return text[pos]


def _token_positions(text: str, token: str) -> list[int]:
    """Start offsets of ``token`` in ``text`` as a whole token (identifiers not inside
    longer identifiers), skipping comments."""
    cut = text.find("//")
    if cut >= 0:
        text = text[:cut]
    out = []
    start = text.find(token)
    word = token[0].isalnum() or token[0] == "_"
    while start >= 0:
        before = text[start - 1] if start > 0 else " "
        after = text[start + len(token)] if start + len(token) < len(text) else " "
        if not word or not ((before.isalnum() or before == "_") or (after.isalnum() or after == "_")):
            out.append(start)
        start = text.find(token, start + 1)
    return out


# --------------------------------------------------------------------------- scope


@dataclass
class PointerBinding:
    """A pointer variable resolved statically to ``mem + offset``."""

    mem: K.Memory
    offset: K.Expr


@dataclass
class ScalarMemory:
    """A ``__shared__``/``__device__`` scalar: one memory cell, read and written by name."""

    mem: K.Memory


@dataclass
class Scope:
    """Lexical scope: C names → KPL variables, memories or pointer bindings."""

    parent: Scope | None = None
    names: dict[str, Any] = field(default_factory=dict)

    def lookup(self, name: str) -> Any:
        scope: Scope | None = self
        while scope is not None:
            if name in scope.names:
                return scope.names[name]
            scope = scope.parent
        return None


# --------------------------------------------------------------------------- lowering


class Lowerer:
    """Lowers one ``__global__`` function (and what it calls) to a :class:`K.Kernel`."""

    def __init__(self, parsed: Any, func: c_ast.FuncDef, info: Any, launch: K.Launch) -> None:
        self.parsed = parsed
        self.func = func
        self.info = info
        self.launch = launch
        self.path = parsed.path
        self.source = SourceText(parsed.text)
        self.label_counter = 0
        self.temp_counter = 0
        self.var_names: set[str] = set()
        self.typedefs: dict[str, c_ast.Node] = {}
        self.structs: dict[str, K.CType] = {}
        self.functions: dict[str, c_ast.FuncDef] = {}
        self.declared_functions: set[str] = set()
        self.memories: dict[str, K.Memory] = {}
        self.requires: list[K.Expr] = []
        self.uses_named = False
        self.call_stack: list[str] = [info.name]
        self.inline_depth = 0
        self.control_depth = 0
        self._lowered: dict[int, str] | None = None
        self.result_vars: list[K.Var | None] = []
        self.current_func = info.name
        self.globals = Scope()
        self._collect_file_scope()

    # ------------------------------------------------------------------ utilities

    def label(self) -> int:
        self.label_counter += 1
        return self.label_counter - 1

    def error(self, message: str, node: c_ast.Node | None = None) -> KplError:
        coord = getattr(node, "coord", None) if node is not None else None
        if coord is not None:
            return KplError(message, str(coord.file), coord.line, coord.column or 1)
        return KplError(message, self.path)

    def unique(self, base: str) -> str:
        name = base
        n = 1
        while name in self.var_names:
            n += 1
            name = f"{base}.{n}"
        self.var_names.add(name)
        return name

    def temp(self, typ: K.CType, hint: str = "t") -> K.Var:
        self.temp_counter += 1
        return K.Var(self.unique(f"__{hint}{self.temp_counter}"), typ)

    # ------------------------------------------------------------------ file scope

    def _collect_file_scope(self) -> None:
        for ext in self.parsed.ast.ext:
            if isinstance(ext, c_ast.FuncDef):
                self.functions[ext.decl.name] = ext
            elif isinstance(ext, c_ast.Typedef):
                self.typedefs[ext.name] = ext.type
            elif isinstance(ext, c_ast.Decl):
                if isinstance(ext.type, c_ast.FuncDecl):
                    self.declared_functions.add(ext.name)
                    continue
                if ext.name is None:
                    self._register_struct(ext.type)
                    continue
                self._declare_global(ext)

    def _register_struct(self, node: c_ast.Node) -> None:
        if isinstance(node, c_ast.Struct) and node.name and node.decls:
            fields = tuple(d.name for d in node.decls if d.name)
            self.structs[node.name] = K.CType("vec", 32, True, node.name, K.FLOAT, fields)

    def _declare_global(self, decl: c_ast.Decl) -> None:
        name = decl.name
        space = self.parsed.var_spaces.get((None, name))
        if name in self.parsed.textures:
            elem_name, _dims = self.parsed.textures[name]
            elem = _vector_type(elem_name) or self._named_type(elem_name, decl)
            self.globals.names[name] = K.Memory(name, K.Space.TEXTURE, elem, (None,))
            return
        if space is None and not isinstance(decl.type, c_ast.ArrayDecl):
            return  # a host-side global or a placeholder: not visible to kernels as memory
        kind = {"shared": K.Space.SHARED, "constant": K.Space.CONSTANT,
                "device": K.Space.GLOBAL}.get(space or "", K.Space.GLOBAL)
        elem, dims = self._array_shape(decl.type, decl)
        scalar = not isinstance(decl.type, (c_ast.ArrayDecl, c_ast.PtrDecl))
        mem = K.Memory(name, kind, elem, (1,) if scalar else dims)
        self.globals.names[name] = ScalarMemory(mem) if scalar else mem
        self.memories[name] = mem

    # ------------------------------------------------------------------ types

    def _named_type(self, name: str, node: c_ast.Node | None) -> K.CType:
        if name in ("float",):
            return K.FLOAT
        if name in ("double", "long double"):
            return K.DOUBLE
        if name in ("_Bool", "bool"):
            return K.BOOL
        if name == "void":
            return K.VOID
        if name in _INT_NAMES:
            bits, signed = _INT_NAMES[name]
            return _int_type(bits, signed)
        vec = _vector_type(name)
        if vec is not None:
            return vec
        if name in self.structs:
            return self.structs[name]
        if name in self.typedefs:
            return self.ctype(self.typedefs[name], node)
        raise self.error(f"unknown type '{name}'", node)

    def ctype(self, node: c_ast.Node, where: c_ast.Node | None = None) -> K.CType:
        """The KPL type of a pycparser type node (arrays decay to pointers)."""
        if isinstance(node, c_ast.TypeDecl):
            return self.ctype(node.type, where)
        if isinstance(node, c_ast.IdentifierType):
            names = [n for n in node.names if n not in ("const", "volatile", "signed")]
            signed_kw = "signed" in node.names
            text = " ".join(names)
            text = text.replace("long int", "long").replace("short int", "short")
            text = text.replace("unsigned int", "unsigned").replace("long long int", "long long")
            if text == "" and signed_kw:
                text = "int"
            if text.startswith("unsigned "):
                rest = text[len("unsigned "):]
                bits = _INT_NAMES.get(rest, (32, True))[0]
                return _int_type(bits, False)
            return self._named_type(text, where)
        if isinstance(node, (c_ast.PtrDecl, c_ast.ArrayDecl)):
            return K.CType("ptr", 64, False, "pointer", self.ctype(node.type, where))
        if isinstance(node, c_ast.Struct):
            if node.name in self.structs:
                return self.structs[node.name]
            if node.decls:
                self._register_struct(node)
                return self.structs[node.name]
            vec = _vector_type(node.name or "")
            if vec is not None:
                return vec
            raise self.error(f"unknown struct '{node.name}'", where)
        if isinstance(node, c_ast.Typename):
            return self.ctype(node.type, where)
        if isinstance(node, c_ast.FuncDecl):
            return self.ctype(node.type, where)
        if isinstance(node, (c_ast.Enum,)):
            return K.INT
        raise self.error(f"unsupported type: {type(node).__name__}", where)

    def _array_shape(self, node: c_ast.Node, where: c_ast.Node) -> tuple[K.CType, tuple[int | None, ...]]:
        dims: list[int | None] = []
        while isinstance(node, (c_ast.ArrayDecl, c_ast.PtrDecl)):
            if isinstance(node, c_ast.ArrayDecl):
                dims.append(self._const_int(node.dim) if node.dim is not None else None)
            else:
                dims.append(None)
            node = node.type
        return self.ctype(node, where), tuple(dims) if dims else (None,)

    def _const_int(self, node: c_ast.Node) -> int | None:
        """Fold an integer constant expression (array extents after template substitution)."""
        try:
            value = self._fold(self.expr_pure(node))
        except KplError:
            return None
        return value if isinstance(value, int) else None

    def _fold(self, e: K.Expr) -> int | float | None:
        if isinstance(e, K.Const):
            return e.value if not isinstance(e.value, bool) else int(e.value)
        if isinstance(e, K.Builtin):
            table = {"blockDim": self.launch.block_dim, "gridDim": self.launch.grid_dim}
            if e.name in table:
                return table[e.name]["xyz".index(e.dim)]
            return None
        if isinstance(e, K.Cast):
            v = self._fold(e.operand)
            if v is None:
                return None
            return int(v) if e.type.kind == "int" else v
        if isinstance(e, K.Unary):
            v = self._fold(e.operand)
            if v is None:
                return None
            return {"-": lambda: -v, "+": lambda: v, "~": lambda: ~int(v),
                    "!": lambda: int(not v)}[e.op]()
        if isinstance(e, K.Binary):
            a, b = self._fold(e.left), self._fold(e.right)
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
            c = self._fold(e.cond)
            if c is None:
                return None
            return self._fold(e.then if c else e.els)
        return None

    # ------------------------------------------------------------------ spans

    def span_of(self, node: c_ast.Node, *, decl: bool = False) -> K.Span | None:
        """The statement's extent in the original text, or a line-only span when the text
        there is not the statement verbatim (macro expansion, included file)."""
        coord = getattr(node, "coord", None)
        if coord is None or coord.line is None:
            return None
        file = str(coord.file)
        col = coord.column or 1
        if os.path.abspath(file) != os.path.abspath(self.path) and file != self.path:
            return K.Span(file, coord.line, col)
        col = self._original_column(coord.line, col)
        if col is None:
            return K.Span(file, coord.line, coord.column or 1)
        start = self.source.offset(coord.line, col)
        if decl:
            start = self.source.declaration_start(start)
        end = self.source.statement_end(start)
        line, col = self.source.line_col(start)
        if end < 0:
            return K.Span(self.path, line, col)
        end_line, end_col = self.source.line_col(end)
        return K.Span(self.path, line, col, end_line, end_col, start, end)

    def _original_column(self, line: int, col: int) -> int | None:
        """Map a column of the lowered line to the original line.  Exact when the text
        before it is unchanged (the usual case: no macro expanded earlier on the line);
        otherwise the token there is matched by its rank among equal tokens on the line
        (the k-th ``{`` in the lowered line is the k-th ``{`` in the original)."""
        original = self.parsed.original_line(self.path, line)
        lowered = self._lowered_line(line)
        if original[: col - 1] == lowered[: col - 1] and col - 1 <= len(original):
            return col
        token = _token_at(lowered, col - 1)
        if token:
            rank = len(_token_positions(lowered[: col - 1], token))
            found = _token_positions(original, token)
            if rank < len(found):
                return found[rank] + 1
        if lowered[: col - 1].strip() == "" and original.strip():
            return len(original) - len(original.lstrip()) + 1
        return None

    def _lowered_line(self, line: int) -> str:
        """The line pycparser saw for original ``line`` of the main file.  A template's
        definition is blanked where it stood and re-emitted per instantiation under the same
        line numbers, so prefer a non-blank copy."""
        if self._lowered is None:
            from kpl.spans import line_map

            table: dict[int, str] = {}
            physical = self.parsed.lowered.split("\n")
            for index, loc in enumerate(line_map(self.parsed.lowered)):
                if loc is None or loc[0] != self.path:
                    continue
                if loc[1] not in table or (not table[loc[1]].strip() and physical[index].strip()):
                    table[loc[1]] = physical[index]
            self._lowered = table
        return self._lowered.get(line, "")

    def block_source(self, node: c_ast.Node) -> K.BlockSource:
        if not isinstance(node, c_ast.Compound):
            return K.BlockSource()
        span = self.span_of(node)
        if span is None or span.start < 0 or self.source.text[span.start] != "{":
            return K.BlockSource()
        return K.BlockSource(span.start, span.end - 1)

    # ------------------------------------------------------------------ entry

    def lower(self) -> K.Kernel:
        func = self.func
        scope = Scope(self.globals)
        params: list[K.Param] = []
        for p in self._params(func.decl):
            typ = self.ctype(p.type, p)
            name = p.name
            if typ.kind == "ptr":
                elem = typ.elem or K.INT
                mem = K.Memory(name, K.Space.GLOBAL, elem, (None,))
                self.memories[name] = mem
                scope.names[name] = PointerBinding(mem, K.Const(0))
                params.append(K.Param(name, typ, mem=mem))
            else:
                var = K.Var(self.unique(name), typ)
                scope.names[name] = var
                params.append(K.Param(name, typ, var=var))
        body = self.block(func.body, scope, main=True)
        header = self.parsed.header
        kernel = K.Kernel(
            name=self.info.display_name, params=params, body=body, launch=self.launch,
            source_path=self.path, source_text=self.parsed.text,
            memories=dict(self.memories), requires=list(self.requires),
            expected=dict(header.expected), uses_named_barriers=self.uses_named,
        )
        if header.verdict:
            kernel.expected.setdefault("verdict", header.verdict)
        kernel.next_label = self.label_counter
        return kernel

    def _params(self, decl: c_ast.Decl) -> list[c_ast.Decl]:
        args = decl.type.args
        if args is None:
            return []
        out = []
        for p in args.params:
            if isinstance(p, c_ast.EllipsisParam):
                continue
            if isinstance(p, c_ast.Typename):  # f(void)
                continue
            out.append(p)
        return out

    # ------------------------------------------------------------------ blocks

    def block(self, node: c_ast.Node | None, scope: Scope, *, main: bool = False,
              placeable: bool = True) -> K.Block:
        label = self.label()
        start = self.label()
        inner = Scope(scope)
        stmts: list[K.Stmt] = []
        items: list[c_ast.Node]
        if node is None:
            items = []
        elif isinstance(node, c_ast.Compound):
            items = list(node.block_items or [])
        else:
            items = [node]
        self._statements(items, inner, stmts)
        if not placeable or self.inline_depth:
            for s in stmts:
                s.placeable = False
        blk = K.Block(stmts, label, start, self.block_source(node) if node is not None else K.BlockSource())
        # an unbraced body can take a barrier at its start: the renderer adds the braces
        unbraced_ok = (node is not None and not isinstance(node, c_ast.Compound)
                       and len(stmts) == 1 and stmts[0].span is not None and stmts[0].span.start >= 0)
        blk.placeable_start = placeable and not self.inline_depth and (
            main or blk.source.open_brace >= 0 or unbraced_ok)
        return blk

    def _statements(self, items: list[c_ast.Node], scope: Scope, out: list[K.Stmt]) -> None:
        i = 0
        while i < len(items):
            item = items[i]
            if isinstance(item, c_ast.Decl):
                # `int a = 1, b;` arrives as several Decl nodes with one statement extent
                group = [item]
                while (i + 1 < len(items) and isinstance(items[i + 1], c_ast.Decl)
                       and items[i + 1].coord.line == item.coord.line
                       and self._same_decl_statement(item, items[i + 1])):
                    i += 1
                    group.append(items[i])
                span = self.span_of(group[0], decl=True)
                lowered: list[K.Stmt] = []
                for decl in group:
                    lowered.extend(self.declaration(decl, scope))
                self._finish(lowered, span, out)
            elif isinstance(item, c_ast.Compound):
                self._statements(list(item.block_items or []), Scope(scope), out)
            elif isinstance(item, c_ast.DeclList):
                lowered = []
                for decl in item.decls:
                    lowered.extend(self.declaration(decl, scope))
                self._finish(lowered, self.span_of(item, decl=True), out)
            else:
                self._finish(self.statement(item, scope), self.span_of(item), out)
            i += 1

    def _same_decl_statement(self, a: c_ast.Decl, b: c_ast.Decl) -> bool:
        """Two consecutive Decls belong to one C declaration when no ';' separates them."""
        sa = self.source.offset(a.coord.line, a.coord.column or 1)
        sb = self.source.offset(b.coord.line, b.coord.column or 1)
        if sa < 0 or sb < 0 or sb <= sa:
            return False
        semi = self.source.scan_to(sa, ";")
        return semi < 0 or semi > sb

    def _finish(self, stmts: list[K.Stmt], span: K.Span | None, out: list[K.Stmt]) -> None:
        """Attach the C statement's span; only its last KPL statement is placeable."""
        for n, stmt in enumerate(stmts):
            if stmt.span is None:
                stmt.span = span
            if n < len(stmts) - 1:
                stmt.placeable = False
                stmt.synthetic = True
        if stmts and (span is None or span.start < 0):
            stmts[-1].placeable = False
        out.extend(stmts)

    # ------------------------------------------------------------------ statements

    def statement(self, node: c_ast.Node, scope: Scope) -> list[K.Stmt]:
        method = getattr(self, "stmt_" + type(node).__name__, None)
        if method is None:
            raise self.error(f"unsupported construct: {type(node).__name__}", node)
        result: list[K.Stmt] = method(node, scope)
        return result

    def stmt_EmptyStatement(self, node: c_ast.Node, scope: Scope) -> list[K.Stmt]:
        return []

    def stmt_Pragma(self, node: c_ast.Node, scope: Scope) -> list[K.Stmt]:
        return []

    def stmt_Goto(self, node: c_ast.Node, scope: Scope) -> list[K.Stmt]:
        raise self.error("unsupported construct: goto", node)

    def stmt_Label(self, node: c_ast.Label, scope: Scope) -> list[K.Stmt]:
        raise self.error("unsupported construct: statement label (goto target)", node)

    def stmt_Break(self, node: c_ast.Node, scope: Scope) -> list[K.Stmt]:
        return [K.Break(label=self.label())]

    def stmt_Continue(self, node: c_ast.Node, scope: Scope) -> list[K.Stmt]:
        return [K.Continue(label=self.label())]

    def stmt_Return(self, node: c_ast.Return, scope: Scope) -> list[K.Stmt]:
        pre: list[K.Stmt] = []
        value = None
        if node.expr is not None:
            value = self.expr(node.expr, scope, pre)
            if self.result_vars and self.result_vars[-1] is not None:
                target = self.result_vars[-1]
                assert target is not None
                pre.append(K.Assign(target, self._convert(value, target.type), label=self.label()))
                value = None
        return pre + [K.Return(value, label=self.label())]

    def stmt_Compound(self, node: c_ast.Compound, scope: Scope) -> list[K.Stmt]:
        out: list[K.Stmt] = []
        self._statements(list(node.block_items or []), Scope(scope), out)
        return out

    def stmt_If(self, node: c_ast.If, scope: Scope) -> list[K.Stmt]:
        pre: list[K.Stmt] = []
        cond = self.condition(node.cond, scope, pre)
        label = self.label()
        self.control_depth += 1
        then = self.block(node.iftrue, scope)
        then.label = label
        els = None
        if node.iffalse is not None:
            els = self.block(node.iffalse, scope)
            els.span = self.span_of(node.iffalse)
        self.control_depth -= 1
        return pre + [K.If(cond, then, els, label=label)]

    def stmt_While(self, node: c_ast.While, scope: Scope) -> list[K.Stmt]:
        return self._loop("while", None, node.cond, None, node.stmt, scope, True, node)

    def stmt_DoWhile(self, node: c_ast.DoWhile, scope: Scope) -> list[K.Stmt]:
        return self._loop("do", None, node.cond, None, node.stmt, scope, False, node)

    def stmt_For(self, node: c_ast.For, scope: Scope) -> list[K.Stmt]:
        return self._loop("for", node.init, node.cond, node.next, node.stmt, scope, True, node)

    def _loop(self, kind: str, init: c_ast.Node | None, cond: c_ast.Node | None,
              step: c_ast.Node | None, body: c_ast.Node, scope: Scope, test_first: bool,
              node: c_ast.Node) -> list[K.Stmt]:
        loop_scope = Scope(scope)
        whole = self.span_of(node)
        # synthetic header leaves (init, step, hoisted condition) point at the header line
        header_span = K.Span(whole.file, whole.line, whole.col) if whole is not None else None
        pre: list[K.Stmt] = []
        if init is not None:
            if isinstance(init, c_ast.DeclList):
                for decl in init.decls:
                    pre.extend(self.declaration(decl, loop_scope))
            else:
                pre.extend(self.effects(init, loop_scope))
        invariants: list[K.Stmt] = []
        cond_expr: K.Expr = K.Const(1)
        cond_pre: list[K.Stmt] = []
        if cond is not None:
            parts = cond.exprs if isinstance(cond, c_ast.ExprList) else [cond]
            for part in parts[:-1]:
                if self._annotation_name(part):
                    invariants.append(K.Annotation(self._annotation_name(part) or "",
                                                   label=self.label()))
                else:
                    cond_pre.extend(self.effects(part, loop_scope))
            cond_expr = self.condition(parts[-1], loop_scope, cond_pre)
        label = self.label()
        self.control_depth += 1
        body_block = self.block(body, loop_scope)
        self.control_depth -= 1
        body_block.label = label
        latch: list[K.Stmt] = []
        if step is not None:
            latch.extend(self.effects(step, loop_scope))
        if cond_pre:
            # the condition reads memory: evaluate it before the loop and again each latch
            latch.extend(self._relabel(cond_pre))
        for stmt in latch:
            stmt.placeable = False
            stmt.synthetic = True
            stmt.span = stmt.span or header_span
        for stmt in invariants:
            stmt.placeable = False
            stmt.synthetic = True
            stmt.span = header_span
        body_block.stmts[:0] = invariants
        before = pre + (cond_pre if test_first else [])
        for stmt in before:
            stmt.placeable = False
            stmt.synthetic = True
            stmt.span = stmt.span or header_span
        loop = K.Loop(cond_expr, body_block, latch, kind=kind, test_first=test_first, label=label)
        return before + [loop]

    def _relabel(self, stmts: list[K.Stmt]) -> list[K.Stmt]:
        out = []
        for s in stmts:
            out.append(replace(s, label=self.label()))
        return out

    def stmt_Switch(self, node: c_ast.Switch, scope: Scope) -> list[K.Stmt]:
        """``switch`` as a once-loop over ``if (fall || sw == v) { fall = 1; … }`` arms, so
        ``break`` leaves it and fall-through is exact."""
        pre: list[K.Stmt] = []
        subject = self.expr(node.cond, scope, pre)
        label = self.label()
        start = self.label()
        sw = self.temp(subject.type if subject.type.kind == "int" else K.INT, "sw")
        fall = self.temp(K.INT, "fall")
        stmts: list[K.Stmt] = [K.Decl(sw, subject, label=self.label(), placeable=False, synthetic=True),
                               K.Decl(fall, K.Const(0), label=self.label(), placeable=False,
                                      synthetic=True)]
        items = node.stmt.block_items if isinstance(node.stmt, c_ast.Compound) else [node.stmt]
        cases = [it for it in items or [] if isinstance(it, (c_ast.Case, c_ast.Default))]
        values = [self.expr_pure(c.expr) for c in cases if isinstance(c, c_ast.Case)]
        inner = Scope(scope)
        self.control_depth += 1
        for n, case in enumerate(cases):
            if isinstance(case, c_ast.Case):
                match: K.Expr = K.Binary("==", sw, self.expr_pure(case.expr), K.INT)
            else:
                if n != len(cases) - 1:
                    raise self.error("unsupported: 'default' must be the last case", case)
                match = K.Const(1)
                for v in values:
                    match = K.Binary("&&", match, K.Binary("!=", sw, v, K.INT), K.INT)
            guard = K.Binary("||", fall, match, K.INT)
            arm_label = self.label()
            arm_start = self.label()
            arm: list[K.Stmt] = [K.Assign(fall, K.Const(1), label=self.label(), placeable=False,
                                          synthetic=True)]
            self._statements(list(case.stmts or []), inner, arm)
            block = K.Block(arm, arm_label, arm_start, placeable_start=False)
            stmts.append(K.If(guard, block, None, label=arm_label, placeable=False, synthetic=True,
                              span=self.span_of(case)))
        self.control_depth -= 1
        for s in stmts[:2]:
            s.span = self.span_of(node)
        body = K.Block(stmts, label, start, self.block_source(node.stmt), placeable_start=False)
        return pre + [K.Switch(body, label=label)]

    def stmt_FuncCall(self, node: c_ast.FuncCall, scope: Scope) -> list[K.Stmt]:
        name = self._call_name(node)
        args = list(node.args.exprs) if node.args is not None else []
        if name in BARRIER_CALLS or name in ("__syncthreads_count", "__syncthreads_and",
                                             "__syncthreads_or"):
            return [K.Barrier(spelling=self._barrier_spelling(node), label=self.label())]
        if name in NAMED_BARRIERS:
            self.uses_named = True
            if not args:
                raise self.error("named barrier without a barrier id", node)
            pre: list[K.Stmt] = []
            bid = self.expr(args[0], scope, pre)
            count = self.expr(args[1], scope, pre) if len(args) > 1 else None
            return pre + [K.NamedBarrier(NAMED_BARRIERS[name], bid, count, label=self.label())]
        if name in ASSUMPTIONS:
            pre = []
            cond = self.expr(args[0], scope, pre) if args else K.Const(1)
            if ASSUMPTIONS[name] == "requires":
                self.requires.append(cond)
            return pre + [K.Assume(cond, kind=ASSUMPTIONS[name], label=self.label())]
        if name in ANNOTATIONS:
            return [K.Annotation(name, label=self.label())]
        if name in ("__syncwarp", "__threadfence", "__threadfence_block", "__threadfence_system",
                    "mem_fence", "read_mem_fence", "write_mem_fence", "printf", "assert"):
            return []
        return self.effects(node, scope)

    def _barrier_spelling(self, node: c_ast.FuncCall) -> str:
        span = self.span_of(node)
        if span is not None and span.start >= 0 and span.end > span.start:
            text = self.source.text[span.start:span.end].rstrip(";").strip()
            if text:
                return text
        return self._call_name(node) + "()"

    def stmt_Assignment(self, node: c_ast.Node, scope: Scope) -> list[K.Stmt]:
        return self.effects(node, scope)

    def stmt_UnaryOp(self, node: c_ast.Node, scope: Scope) -> list[K.Stmt]:
        return self.effects(node, scope)

    def stmt_ExprList(self, node: c_ast.Node, scope: Scope) -> list[K.Stmt]:
        return self.effects(node, scope)

    def stmt_Cast(self, node: c_ast.Cast, scope: Scope) -> list[K.Stmt]:  # (void)x;
        return self.effects(node.expr, scope)

    def stmt_ID(self, node: c_ast.Node, scope: Scope) -> list[K.Stmt]:
        return []

    def stmt_Constant(self, node: c_ast.Node, scope: Scope) -> list[K.Stmt]:
        return []

    def stmt_TernaryOp(self, node: c_ast.TernaryOp, scope: Scope) -> list[K.Stmt]:
        return self.effects(node, scope)

    def stmt_BinaryOp(self, node: c_ast.Node, scope: Scope) -> list[K.Stmt]:
        return self.effects(node, scope)

    def stmt_ArrayRef(self, node: c_ast.Node, scope: Scope) -> list[K.Stmt]:
        return self.effects(node, scope)

    def stmt_StructRef(self, node: c_ast.Node, scope: Scope) -> list[K.Stmt]:
        return self.effects(node, scope)

    def stmt_Decl(self, node: c_ast.Decl, scope: Scope) -> list[K.Stmt]:
        return self.declaration(node, scope)

    def stmt_Typedef(self, node: c_ast.Typedef, scope: Scope) -> list[K.Stmt]:
        self.typedefs[node.name] = node.type
        return []

    def stmt_Case(self, node: c_ast.Node, scope: Scope) -> list[K.Stmt]:
        raise self.error("'case' outside a switch", node)

    # ------------------------------------------------------------------ declarations

    def declaration(self, decl: c_ast.Decl, scope: Scope) -> list[K.Stmt]:
        if decl.name is None:
            if isinstance(decl.type, c_ast.Struct):
                self._register_struct(decl.type)
            return []
        if isinstance(decl.type, c_ast.FuncDecl):
            self.declared_functions.add(decl.name)
            return []
        name = decl.name
        space = self.parsed.var_spaces.get((self.current_func, name))
        storage = decl.storage or []
        if space in ("shared", "constant", "device") or (
                "extern" in storage and isinstance(decl.type, c_ast.ArrayDecl)):
            elem, dims = self._array_shape(decl.type, decl)
            kind = {"constant": K.Space.CONSTANT, "device": K.Space.GLOBAL}.get(space or "",
                                                                              K.Space.SHARED)
            unique = self.unique(name)
            scalar = not isinstance(decl.type, (c_ast.ArrayDecl, c_ast.PtrDecl))
            mem = K.Memory(unique, kind, elem, (1,) if scalar else dims)
            self.memories[unique] = mem
            scope.names[name] = ScalarMemory(mem) if scalar else mem
            return []
        if isinstance(decl.type, c_ast.ArrayDecl):
            elem, dims = self._array_shape(decl.type, decl)
            mem = K.Memory(self.unique(name), K.Space.LOCAL, elem, dims)
            self.memories[mem.name] = mem
            scope.names[name] = mem
            var = K.Var(mem.name, K.CType("ptr", 64, False, "pointer", elem))
            stmts: list[K.Stmt] = [K.Decl(var, None, array=mem, label=self.label())]
            if isinstance(decl.init, c_ast.InitList):
                pre: list[K.Stmt] = []
                for n, item in enumerate(decl.init.exprs):
                    value = self.expr(item, scope, pre)
                    stmts.extend(pre)
                    pre = []
                    stmts.append(K.Assign(K.MemElem(mem, K.Const(n)), value, label=self.label()))
            return stmts
        typ = self.ctype(decl.type, decl)
        if typ.kind == "ptr":
            return self._pointer_decl(decl, typ, scope)
        pre = []
        init: K.Expr | None = None
        if isinstance(decl.init, c_ast.InitList):
            parts = tuple(self._convert(self.expr(e, scope, pre), typ.elem or K.FLOAT)
                          for e in decl.init.exprs)
            init = K.VecInit(typ, parts) if typ.kind == "vec" else (parts[0] if parts else None)
        elif decl.init is not None:
            init = self._convert(self.expr(decl.init, scope, pre), typ)
        var = K.Var(self.unique(name), typ)
        scope.names[name] = var
        return pre + [K.Decl(var, init, label=self.label())]

    def _pointer_decl(self, decl: c_ast.Decl, typ: K.CType, scope: Scope) -> list[K.Stmt]:
        if decl.init is None:
            scope.names[decl.name] = ("unbound-pointer", decl)
            return []
        binding = self.pointer(decl.init, scope)
        if binding is None:
            raise self.error(f"unsupported: pointer '{decl.name}' does not statically point into "
                             "one array", decl)
        if typ.elem is not None and typ.elem != binding.mem.elem and binding.mem.dims == (None,):
            # `T *s = (T *)smem;` over an untyped extern buffer: view it with the new type
            binding = PointerBinding(replace(binding.mem, elem=typ.elem), binding.offset)
            self.memories[binding.mem.name] = binding.mem
        stable, stmts = self._stable(binding)
        scope.names[decl.name] = stable
        return stmts

    def _stable(self, binding: PointerBinding) -> tuple[PointerBinding, list[K.Stmt]]:
        """Freeze a pointer's offset in a fresh variable: ``p = A + i; i++; p[0]`` must
        still mean ``A[old i]``."""
        if isinstance(binding.offset, K.Const):
            return binding, []
        tmp = self.temp(binding.offset.type, "off")
        return PointerBinding(binding.mem, tmp), [K.Decl(tmp, binding.offset, label=self.label())]

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
                return None
            if isinstance(target, c_ast.ArrayRef):
                mem, index = self.element(target, scope, [])
                return PointerBinding(mem, index)
            return None
        return None

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

    # ------------------------------------------------------------------ effects

    def effects(self, node: c_ast.Node, scope: Scope) -> list[K.Stmt]:
        """Lower an expression evaluated for its side effects to leaves."""
        out: list[K.Stmt] = []
        if isinstance(node, c_ast.ExprList):
            for e in node.exprs:
                out.extend(self.effects(e, scope))
            return out
        if isinstance(node, c_ast.Assignment):
            return self.assignment(node, scope)
        if isinstance(node, c_ast.UnaryOp) and node.op in ("p++", "++", "p--", "--"):
            target = self.lvalue(node.expr, scope, out)
            current = self.read_lvalue(target)
            op = "+" if "+" in node.op else "-"
            out.append(K.Assign(target, K.Binary(op, current, K.Const(1), current.type),
                                label=self.label()))
            return out
        if isinstance(node, c_ast.FuncCall):
            name = self._call_name(node)
            if name in self.functions and self._is_device(name):
                return self.inline_call(node, scope, None)
        value = self.expr(node, scope, out)
        if self._has_effect(value):
            out.append(K.ExprStmt(value, label=self.label()))
        elif any(isinstance(e, K.Load) for e in K.walk_expr(value)):
            out.append(K.ExprStmt(value, label=self.label()))
        return out

    def _has_effect(self, e: K.Expr) -> bool:
        return any(isinstance(x, (K.Atomic, K.Call)) for x in K.walk_expr(e))

    def assignment(self, node: c_ast.Assignment, scope: Scope) -> list[K.Stmt]:
        out: list[K.Stmt] = []
        if isinstance(node.lvalue, c_ast.ID):
            found = scope.lookup(node.lvalue.name)
            if isinstance(found, (PointerBinding, tuple)):
                return self._pointer_assignment(node, found, scope)
        value = self.expr(node.rvalue, scope, out)
        target = self.lvalue(node.lvalue, scope, out)
        if node.op != "=":
            current = self.read_lvalue(target)
            value = K.Binary(node.op[:-1], current, value, current.type)
        value = self._convert(value, self._lvalue_type(target))
        out.append(K.Assign(target, value, label=self.label()))
        return out

    def _pointer_assignment(self, node: c_ast.Assignment, found: Any, scope: Scope) -> list[K.Stmt]:
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

    def _rebind(self, scope: Scope, name: str, value: Any) -> None:
        here: Scope | None = scope
        while here is not None:
            if name in here.names:
                here.names[name] = value
                return
            here = here.parent
        scope.names[name] = value

    def _lvalue_type(self, target: K.LValue) -> K.CType:
        if isinstance(target, K.Var):
            return target.type
        if isinstance(target, K.VarField):
            return target.var.type.elem or K.FLOAT
        if target.field is not None:
            return target.mem.elem.elem or K.FLOAT
        return target.mem.elem

    def read_lvalue(self, target: K.LValue) -> K.Expr:
        if isinstance(target, K.Var):
            return target
        if isinstance(target, K.VarField):
            return K.Field(target.var, target.name, target.var.type.elem or K.FLOAT)
        typ = target.mem.elem if target.field is None else (target.mem.elem.elem or K.FLOAT)
        return K.Load(target.mem, target.index, typ, target.field)

    def lvalue(self, node: c_ast.Node, scope: Scope, pre: list[K.Stmt]) -> K.LValue:
        if isinstance(node, c_ast.ID):
            found = scope.lookup(node.name)
            if isinstance(found, K.Var):
                return found
            if isinstance(found, ScalarMemory):
                return K.MemElem(found.mem, K.Const(0))
            raise self.error(f"cannot assign to '{node.name}'", node)
        if isinstance(node, c_ast.ArrayRef):
            mem, index = self.element(node, scope, pre)
            return K.MemElem(mem, index)
        if isinstance(node, c_ast.UnaryOp) and node.op == "*":
            binding = self.pointer(node.expr, scope)
            if binding is None:
                raise self.error("unsupported: dereference of an unknown pointer", node)
            return K.MemElem(binding.mem, binding.offset)
        if isinstance(node, c_ast.StructRef):
            base = node.name
            if isinstance(base, (c_ast.ArrayRef,)) or (isinstance(base, c_ast.UnaryOp) and base.op == "*"):
                inner = self.lvalue(base, scope, pre)
                assert isinstance(inner, K.MemElem)
                return K.MemElem(inner.mem, inner.index, node.field.name)
            if node.type == "->":
                binding = self.pointer(base, scope)
                if binding is None:
                    raise self.error("unsupported: '->' on an unknown pointer", node)
                return K.MemElem(binding.mem, binding.offset, node.field.name)
            inner = self.lvalue(base, scope, pre)
            if isinstance(inner, K.Var):
                return K.VarField(inner, node.field.name)
            raise self.error("unsupported: nested field assignment", node)
        if isinstance(node, c_ast.Cast):
            return self.lvalue(node.expr, scope, pre)
        raise self.error(f"unsupported assignment target: {type(node).__name__}", node)

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
                                 self._arith(index.type, value.type))
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
        return K.Binary("+", a, b, self._arith(a.type, b.type))

    # ------------------------------------------------------------------ inlining

    def _is_device(self, name: str) -> bool:
        info = self.parsed.functions.get(name)
        return info is None or info.kind in ("device", "global", "host")

    def inline_call(self, node: c_ast.FuncCall, scope: Scope, result_type: K.CType | None) -> list[K.Stmt]:
        """Inline a ``__device__`` function at its call site (DESIGN: procedures are inlined;
        the paper does not support them at all)."""
        name = self._call_name(node)
        if name in self.call_stack:
            raise self.error(f"recursion is not supported: '{name}' calls itself "
                             f"(via {' -> '.join(self.call_stack + [name])})", node)
        func = self.functions[name]
        out: list[K.Stmt] = []
        args = list(node.args.exprs) if node.args is not None else []
        params = self._params(func.decl)
        if len(args) != len(params):
            raise self.error(f"call to '{name}' with {len(args)} arguments, expected {len(params)}",
                             node)
        inner = Scope(self.globals)
        binds: list[K.Stmt] = []
        for param, arg in zip(params, args, strict=True):
            ptype = self.ctype(param.type, param)
            if ptype.kind == "ptr":
                binding = self.pointer(arg, scope)
                if binding is None:
                    raise self.error(f"unsupported: argument for pointer parameter '{param.name}' "
                                     f"of '{name}' does not point into a known array", node)
                inner.names[param.name] = binding
            else:
                value = self._convert(self.expr(arg, scope, out), ptype)
                var = K.Var(self.unique(f"{name}.{param.name}"), ptype)
                inner.names[param.name] = var
                binds.append(K.Decl(var, value, label=self.label(), placeable=False,
                                    synthetic=True))
        ret_type = self.ctype(func.decl.type.type, func)
        result = None
        if ret_type.kind != "void":
            result = K.Var(self.unique(f"{name}.ret"), ret_type)
        label = self.label()
        self.call_stack.append(name)
        self.inline_depth += 1
        self.result_vars.append(result)
        saved_func = self.current_func
        self.current_func = name
        try:
            body = self.block(func.body, inner)
        finally:
            self.current_func = saved_func
            self.result_vars.pop()
            self.inline_depth -= 1
            self.call_stack.pop()
        body.label = label
        if result is not None:
            binds.insert(0, K.Decl(result, None, label=self.label(), placeable=False,
                                   synthetic=True))
        body.stmts[:0] = binds
        body.placeable_start = False
        out.append(K.Inline(name, body, result, label=label))
        return out

    # ------------------------------------------------------------------ expressions

    def condition(self, node: c_ast.Node, scope: Scope, pre: list[K.Stmt]) -> K.Expr:
        """A memory-free condition; memory reads are hoisted into a synthetic leaf."""
        before = len(pre)
        value = self.expr(node, scope, pre)
        if len(pre) != before or any(isinstance(e, (K.Load, K.Atomic)) for e in K.walk_expr(value)):
            tmp = self.temp(K.INT, "cond")
            pre.append(K.Decl(tmp, value, label=self.label(), placeable=False, synthetic=True))
            return tmp
        return value

    def expr_pure(self, node: c_ast.Node, scope: Scope | None = None) -> K.Expr:
        pre: list[K.Stmt] = []
        value = self.expr(node, scope or self.globals, pre)
        if pre:
            raise self.error("expression with side effects where a constant is expected", node)
        return value

    def expr(self, node: c_ast.Node, scope: Scope, pre: list[K.Stmt]) -> K.Expr:
        method = getattr(self, "expr_" + type(node).__name__, None)
        if method is None:
            raise self.error(f"unsupported expression: {type(node).__name__}", node)
        value: K.Expr = method(node, scope, pre)
        return value

    def expr_Constant(self, node: c_ast.Constant, scope: Scope, pre: list[K.Stmt]) -> K.Expr:
        text = node.value
        if node.type in ("char",):
            body = text[1:-1]
            value = ord(body.encode().decode("unicode_escape")) if body else 0
            return K.Const(value, _int_type(8, True))
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
        return K.Const(value, _int_type(bits, not unsigned))

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
            return K.Load(found.mem, K.Const(0), found.mem.elem)
        if isinstance(found, (K.Memory, PointerBinding)):
            raise self.error(f"unsupported: array or pointer '{name}' used as a value", node)
        enum_value = self._enum_constant(name)
        if enum_value is not None:
            return K.Const(enum_value)
        raise self.error(f"unknown identifier '{name}'", node)

    def _enum_constant(self, name: str) -> int | None:
        for ext in self.parsed.ast.ext:
            enum = getattr(getattr(ext, "type", None), "values", None)
            node = getattr(ext, "type", None)
            if isinstance(node, c_ast.Enum) and enum is not None:
                value: int | None = -1
                for item in enum.enumerators:
                    if item.value is not None:
                        value = self._const_int(item.value)
                    elif value is not None:
                        value += 1
                    if value is None:
                        break
                    if item.name == name:
                        return value
        return None

    def expr_StructRef(self, node: c_ast.StructRef, scope: Scope, pre: list[K.Stmt]) -> K.Expr:
        base = node.name
        fname = node.field.name
        if isinstance(base, c_ast.ID) and base.name in BUILTIN_DIMS and scope.lookup(base.name) is None:
            if fname not in ("x", "y", "z"):
                raise self.error(f"'{base.name}' has no field '{fname}'", node)
            return K.Builtin(base.name, fname, K.UINT)
        if node.type == "->":
            binding = self.pointer(base, scope)
            if binding is None:
                raise self.error("unsupported: '->' on an unknown pointer", node)
            elem = binding.mem.elem
            return K.Load(binding.mem, binding.offset, elem.elem or K.FLOAT, fname)
        if isinstance(base, c_ast.ArrayRef) or (isinstance(base, c_ast.UnaryOp) and base.op == "*"):
            target = self.lvalue(base, scope, pre)
            assert isinstance(target, K.MemElem)
            elem = target.mem.elem
            return K.Load(target.mem, target.index, elem.elem or K.FLOAT, fname)
        value = self.expr(base, scope, pre)
        elem = value.type.elem if value.type.kind == "vec" and value.type.elem else K.FLOAT
        return K.Field(value, fname, elem)

    def expr_ArrayRef(self, node: c_ast.ArrayRef, scope: Scope, pre: list[K.Stmt]) -> K.Expr:
        mem, index = self.element(node, scope, pre)
        return K.Load(mem, index, mem.elem)

    def expr_UnaryOp(self, node: c_ast.UnaryOp, scope: Scope, pre: list[K.Stmt]) -> K.Expr:
        op = node.op
        if op == "sizeof":
            target = node.expr
            if isinstance(target, c_ast.Typename):
                typ = self.ctype(target.type, node)
            else:
                typ = self.expr(target, scope, []).type
            size = max(1, typ.bits // 8) * (len(typ.fields) if typ.kind == "vec" else 1)
            return K.Const(size, K.ULONG)
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
            return K.Load(binding.mem, binding.offset, binding.mem.elem)
        if op == "&":
            raise self.error("unsupported: address-of outside an atomic call or pointer "
                             "initialiser", node)
        operand = self.expr(node.expr, scope, pre)
        if op == "+":
            return operand
        if op == "!":
            return K.Unary("!", operand, K.INT)
        typ = operand.type if operand.type.kind != "bool" else K.INT
        if typ.kind == "int" and typ.bits < 32:
            typ = K.INT
        return K.Unary(op, operand, typ)

    def _arith(self, a: K.CType, b: K.CType) -> K.CType:
        """C's usual arithmetic conversions, reduced to what the verifiers model."""
        if a.kind == "float" or b.kind == "float":
            bits = max(a.bits if a.kind == "float" else 0, b.bits if b.kind == "float" else 0)
            return K.DOUBLE if bits == 64 else K.FLOAT
        if a.kind == "vec":
            return a
        if b.kind == "vec":
            return b
        if a.kind == "ptr":
            return a
        bits_a = max(a.bits, 32) if a.kind in ("int", "bool") else 32
        bits_b = max(b.bits, 32) if b.kind in ("int", "bool") else 32
        bits = max(bits_a, bits_b)
        unsigned = ((a.kind == "int" and not a.signed and a.bits >= 32 and a.bits == bits)
                    or (b.kind == "int" and not b.signed and b.bits >= 32 and b.bits == bits))
        return _int_type(bits, not unsigned)

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
            return K.Binary(op, left, right, K.INT)
        left = self.expr(node.left, scope, pre)
        right = self.expr(node.right, scope, pre)
        if op in ("<", ">", "<=", ">=", "==", "!="):
            return K.Binary(op, left, right, K.INT)
        if op in ("<<", ">>"):
            typ = left.type if left.type.kind == "int" and left.type.bits >= 32 else (
                K.INT if left.type.kind != "float" else left.type)
            return K.Binary(op, left, right, typ)
        return K.Binary(op, left, right, self._arith(left.type, right.type))

    def expr_TernaryOp(self, node: c_ast.TernaryOp, scope: Scope, pre: list[K.Stmt]) -> K.Expr:
        cond = self.expr(node.cond, scope, pre)
        arm_pre: list[K.Stmt] = []
        then = self.expr(node.iftrue, scope, arm_pre)
        els = self.expr(node.iffalse, scope, arm_pre)
        if arm_pre:
            raise self.error("unsupported: side effect inside '?:'", node)
        return K.Cond(cond, then, els, self._arith(then.type, els.type))

    def expr_Cast(self, node: c_ast.Cast, scope: Scope, pre: list[K.Stmt]) -> K.Expr:
        typ = self.ctype(node.to_type.type, node)
        value = self.expr(node.expr, scope, pre)
        return self._convert(value, typ)

    def _convert(self, value: K.Expr, typ: K.CType) -> K.Expr:
        if typ.kind in ("ptr", "void", "vec") or value.type == typ:
            return value
        if isinstance(value, K.Const) and typ.kind == "int" and isinstance(value.value, int):
            return K.Const(value.value, typ)
        return K.Cast(typ, value)

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

    def _call_name(self, node: c_ast.FuncCall) -> str:
        return node.name.name if isinstance(node.name, c_ast.ID) else ""

    def expr_FuncCall(self, node: c_ast.FuncCall, scope: Scope, pre: list[K.Stmt]) -> K.Expr:
        name = self._call_name(node)
        args = list(node.args.exprs) if node.args is not None else []
        if not name:
            raise self.error("unsupported: call through a function pointer", node)
        if name in BARRIER_CALLS:
            raise self.error(f"'{name}()' must be a statement of its own", node)
        if name in ATOMICS:
            if not args:
                raise self.error(f"'{name}' needs an address", node)
            binding = self.pointer(args[0], scope)
            if binding is None:
                raise self.error(f"unsupported: the address given to '{name}' does not point "
                                 "into a known array", node)
            rest = tuple(self.expr(a, scope, pre) for a in args[1:])
            return K.Atomic(name, binding.mem, binding.offset, rest, binding.mem.elem)
        if name in TEXTURE_FETCHES:
            if not args or not isinstance(args[0], c_ast.ID):
                raise self.error(f"'{name}' needs a texture", node)
            mem = scope.lookup(args[0].name)
            if not isinstance(mem, K.Memory):
                raise self.error(f"'{args[0].name}' is not a texture", node)
            coords = tuple(self.expr(a, scope, pre) for a in args[1:])
            return K.Load(mem, K.Call("__texel", coords, K.INT), mem.elem)
        if name.startswith("make_"):
            typ = _vector_type(name[len("make_"):])
            if typ is not None:
                parts = tuple(self._convert(self.expr(a, scope, pre), typ.elem or K.FLOAT)
                              for a in args)
                return K.VecInit(typ, parts)
        if name in ANNOTATIONS or name in ASSUMPTIONS:
            return K.Const(1)
        if name in self.functions and self._is_device(name):
            func = self.functions[name]
            ret_type = self.ctype(func.decl.type.type, func)
            stmts = self.inline_call(node, scope, ret_type)
            pre.extend(stmts)
            inline = stmts[-1]
            assert isinstance(inline, K.Inline)
            if inline.result is None:
                raise self.error(f"'{name}' returns void but its value is used", node)
            return inline.result
        values = tuple(self.expr(a, scope, pre) for a in args)
        return K.Call(name, values, self._call_type(name, values))

    def _call_type(self, name: str, args: tuple[K.Expr, ...]) -> K.CType:
        float_like = ("f", "sqrt", "exp", "log", "sin", "cos", "tan", "pow", "fabs", "floor",
                      "ceil", "rsqrt", "fmin", "fmax", "__fdividef", "__expf", "__logf",
                      "__saturatef", "__int_as_float", "__fmul", "__fadd", "fma")
        int_like = ("__popc", "__ffs", "__clz", "__ballot", "__any", "__all", "__mul24",
                    "__umul24", "__float_as_int", "__brev", "__activemask", "abs")
        if name.startswith(int_like):
            return K.UINT if name.startswith(("__ballot", "__activemask", "__umul24", "__brev")) else K.INT
        if name.startswith("__shfl") or name in ("min", "max", "umin", "umax"):
            data = [a.type for a in args if a.type.kind != "void"]
            if name.startswith("__shfl") and len(args) >= 2:
                return args[1].type if name.endswith("_sync") else args[0].type
            return self._arith(data[0], data[-1]) if data else K.INT
        if name.startswith(float_like) or name.endswith("f"):
            return K.FLOAT
        for ext in self.parsed.ast.ext:
            if isinstance(ext, c_ast.Decl) and ext.name == name and isinstance(ext.type, c_ast.FuncDecl):
                try:
                    return self.ctype(ext.type.type, ext)
                except KplError:
                    return K.INT
        return K.INT

    def _annotation_name(self, node: c_ast.Node) -> str | None:
        if isinstance(node, c_ast.FuncCall):
            name = self._call_name(node)
            if name in ANNOTATIONS:
                return name
        return None


# --------------------------------------------------------------------------- API


def _launch(header: Any, info: Any, block_dim: Any, grid_dim: Any,
            warp_sync: int | None) -> K.Launch:
    def dims(value: Any) -> tuple[int, int, int] | None:
        if value is None:
            return None
        if isinstance(value, int):
            return (value, 1, 1)
        vals = list(value) + [1, 1]
        return (int(vals[0]), int(vals[1]), int(vals[2]))

    block = dims(block_dim) or dims(header.block_dim)
    if block is None and info.launch_bounds:
        block = (info.launch_bounds[0], 1, 1)
    grid = dims(grid_dim) or dims(header.grid_dim)
    return K.Launch(block or (256, 1, 1), grid or (64, 1, 1),
                    warp_sync if warp_sync is not None else header.warp_sync)


def _header_defines(header: Any) -> dict[str, str]:
    """`-DNAME=VALUE` on the header line and our `// autosync: defines=A=1,B=2`."""
    out: dict[str, str] = {}
    for flag in header.flags:
        if flag.startswith("-D") and len(flag) > 2:
            name, _, value = flag[2:].partition("=")
            out[name] = value or "1"
    spec = header.expected.get("defines")
    if spec:
        for item in spec.split(","):
            name, _, value = item.partition("=")
            if name:
                out[name.strip()] = value.strip() or "1"
    return out


def load_kernels(path: str, text: str | None = None, *, defines: dict[str, str] | None = None,
                 include_dirs: list[str] | None = None, block_dim: Any = None,
                 grid_dim: Any = None, warp_sync: int | None = None) -> list[K.Kernel]:
    """Parse ``path`` (or ``text`` as if it were ``path``) into one Kernel per
    ``__global__`` function with a body, in file order."""
    from kpl.cuda import parse_cuda
    from kpl.header import parse_header

    if text is None:
        try:
            with open(path, encoding="utf-8") as fh:
                text = fh.read()
        except OSError as exc:
            raise KplError(f"cannot read file: {exc.strerror}", path) from None
        except UnicodeDecodeError:
            raise KplError("file is not UTF-8 text", path) from None
    header = parse_header(text, path)
    all_defines = _header_defines(header)
    all_defines.update(defines or {})
    parsed = parse_cuda(path, text, defines=all_defines, include_dirs=include_dirs)
    kernels = []
    for ext in parsed.ast.ext:
        if not isinstance(ext, c_ast.FuncDef):
            continue
        info = parsed.functions.get(ext.decl.name)
        if info is None or info.kind != "global":
            continue
        launch = _launch(parsed.header, info, block_dim, grid_dim, warp_sync)
        kernels.append(Lowerer(parsed, ext, info, launch).lower())
    if not kernels:
        raise KplError("no __global__ function with a body in this file", path, 1, 1)
    return kernels


def kernel_names(kernels: list[K.Kernel]) -> list[str]:
    return [k.name for k in kernels]


def select_kernel(kernels: list[K.Kernel], name: str | None, path: str) -> K.Kernel:
    """Pick the kernel called ``name`` (its display name, or the template's base name)."""
    if name is None:
        if len(kernels) == 1:
            return kernels[0]
        raise KplError(f"{len(kernels)} kernels in this file ({', '.join(kernel_names(kernels))}): "
                       "pass --kernel NAME", path)
    for k in kernels:
        base = k.name.split("<", 1)[0]
        if name in (k.name, base, k.name.replace(" ", "")):
            return k
    raise KplError(f"no kernel named '{name}' (available: {', '.join(kernel_names(kernels))})", path)


def load_kernel(path: str, kernel: str | None = None, **options: Any) -> K.Kernel:
    return select_kernel(load_kernels(path, **options), kernel, path)


def parse_kernel_text(text: str, path: str = "<input>.cu", kernel: str | None = None,
                      **options: Any) -> K.Kernel:
    return select_kernel(load_kernels(path, text, **options), kernel, path)

