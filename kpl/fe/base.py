"""Front-end state, scopes and the two dispatch tables (see :mod:`kpl.fe`)."""

from __future__ import annotations

from dataclasses import dataclass, field

from pycparser import c_ast

from kpl import ast as K
from kpl.errors import KplError
from kpl.source import FunctionInfo, ParsedSource
from kpl.spans import NodeSpans, SourceText


@dataclass
class PointerBinding:
    """A pointer variable resolved statically to ``mem + offset``."""

    mem: K.Memory
    offset: K.Expr
    #: set by a pointer cast that changed the pointee's size: ``offset`` is then in BYTES
    #: and the pointee is ``view`` (the byte-range memory model); None: ``offset`` counts
    #: elements of ``mem.elem``
    view: K.CType | None = None


@dataclass
class ScalarMemory:
    """A ``__shared__``/``__device__`` scalar: one memory cell, read and written by name."""

    mem: K.Memory


@dataclass
class UnboundPointer:
    """A pointer declared without initialiser: it gets its binding at its first assignment."""

    decl: c_ast.Decl


@dataclass
class Alias:
    """A C++ reference bound to a memory element or a field of a local (``float &r = s[i];``,
    a ``T &`` parameter of an inlined function): reading or writing the name reads or writes
    ``target`` itself, an access like any other.  A reference to a whole local is bound to
    that local's :class:`K.Var` instead."""

    target: K.LValue


#: What a C name stands for in a scope.
Binding = K.Var | K.Memory | PointerBinding | ScalarMemory | UnboundPointer | Alias


@dataclass
class Scope:
    """Lexical scope: C names → KPL variables, memories or pointer bindings."""

    parent: Scope | None = None
    names: dict[str, Binding] = field(default_factory=dict)

    def lookup(self, name: str) -> Binding | None:
        scope: Scope | None = self
        while scope is not None:
            if name in scope.names:
                return scope.names[name]
            scope = scope.parent
        return None


class LowererBase:
    """State of lowering one ``__global__`` function, plus the dispatch over node classes.

    The mixins of :mod:`kpl.fe` extend it; :meth:`block` and :meth:`effects` are declared
    here because expressions and calls recurse into them (defined in :mod:`kpl.fe.stmts`).
    """

    def __init__(self, parsed: ParsedSource, func: c_ast.FuncDef, info: FunctionInfo,
                 launch: K.Launch) -> None:
        self.parsed = parsed  # the whole parsed file (AST + side tables)
        self.func = func  # the kernel being lowered
        self.info = info
        self.launch = launch
        self.path = parsed.path
        self.source = SourceText(parsed.text)  # original text of the main file
        self.spans = NodeSpans(self.source, parsed.path,
                               lambda line: parsed.original_line(parsed.path, line), parsed.lowered)
        self.label_counter = 0  # next KPL label
        self.temp_counter = 0  # next synthetic temporary
        self.var_names: set[str] = set()  # KPL variable names in use (kept unique)
        self.typedefs: dict[str, c_ast.Node] = {}
        self.structs: dict[str, K.CType] = {}
        self.functions: dict[str, c_ast.FuncDef] = {}  # functions with a body, by C name
        self.declared_functions: set[str] = set()  # prototypes
        self.memories: dict[str, K.Memory] = {}  # every memory the kernel can touch
        self.memory_decls: dict[str, c_ast.Node] = {}  # where each memory is declared
        self.requires: list[K.Expr] = []  # ``__requires`` preconditions
        #: ``__ensures`` (condition, where written) of each function being lowered
        self.ensures_stack: list[list[tuple[K.Expr, K.Span | None]]] = [[]]
        # goto regions being lowered, innermost last: (label, "exit"/"loop", flag of an exit
        # region: set when control leaves past it; see kpl.fe.gotos)
        self.goto_targets: list[tuple[str, str, K.Var | None]] = []
        self.null_memories: set[str] = set()  # stand-ins a NULL pointer argument points to
        self.uses_named = False  # saw a named barrier
        self.call_stack: list[str] = [info.name]  # device functions being inlined
        self.inline_depth = 0  # > 0 inside an inlined body (nothing placeable there)
        self.control_depth = 0  # > 0 inside a loop or branch
        self.result_vars: list[K.Var | None] = []  # return slot of each inlined call
        self.current_func = info.name  # C function whose locals are being declared
        self.globals = Scope()  # file scope

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

    def statement(self, node: c_ast.Node, scope: Scope) -> list[K.Stmt]:
        method = getattr(self, "stmt_" + type(node).__name__, None)
        if method is None:
            raise self.error(f"unsupported construct: {type(node).__name__}", node)
        result: list[K.Stmt] = method(node, scope)
        return result

    def expr(self, node: c_ast.Node, scope: Scope, pre: list[K.Stmt]) -> K.Expr:
        method = getattr(self, "expr_" + type(node).__name__, None)
        if method is None:
            raise self.error(f"unsupported expression: {type(node).__name__}", node)
        value: K.Expr = method(node, scope, pre)
        return value

    def expr_pure(self, node: c_ast.Node, scope: Scope | None = None) -> K.Expr:
        pre: list[K.Stmt] = []
        value = self.expr(node, scope or self.globals, pre)
        if pre:
            raise self.error("expression with side effects where a constant is expected", node)
        return value

    # ------------------------------------------------------------------ recursion points

    def block(self, node: c_ast.Node | None, scope: Scope, *, main: bool = False,
              placeable: bool = True) -> K.Block:
        """A (possibly unbraced) body as a KPL block: :meth:`kpl.fe.stmts.StmtsLowering.block`."""
        raise NotImplementedError

    def effects(self, node: c_ast.Node, scope: Scope) -> list[K.Stmt]:
        """An expression evaluated for its side effects: see :mod:`kpl.fe.stmts`."""
        raise NotImplementedError
