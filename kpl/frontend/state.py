"""Translator state, scopes, source spans and the two dispatch tables.

The translation of one ``__global__`` function is one object, built from mixins stacked in
dependency order (:mod:`kpl.frontend`): this module holds what they share.  Names are bound by
clang's declaration ids, not by spelling: clang has already resolved every name (shadowing,
namespaces, overloads, lambdas' captures), so a ``DeclRefExpr`` says exactly which
declaration it means.  Dispatch is one method per clang node kind, ``stmt_<Kind>`` and
``expr_<Kind>``, in the manner of pycparser's ``NodeVisitor``.

Why one piece (over 400 lines): the unit, the scopes and their bindings (what a name may stand
for, :data:`Binding`, one small dataclass per kind), and the base of the translator are the
state and vocabulary every mixin reads; split, each part would import the others.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

from kpl import ast as K
from kpl.errors import KplError
from kpl.frontend import tree
from kpl.frontend.tree import Node
from kpl.frontend.types import TypeTable, UnsupportedType
from kpl.spans import SourceText


@dataclass
class PointerBinding:
    """A pointer value resolved statically to ``mem + offset``."""

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
    """A pointer declared null or without initialiser: it gets its binding at its first
    assignment.  ``null``: declared null (``= nullptr``); else uninitialised, its value unknown."""

    name: str
    null: bool = True


@dataclass
class UnknownPointer:
    """A pointer whose array is not known (read from memory, made from an integer): it may
    be passed on, compared or set again, but an access through it is refused, naming why
    (:meth:`kpl.frontend.access.AccessTranslation.pointer`)."""

    name: str
    why: str


@dataclass
class Alias:
    """A C++ reference bound to a memory element or a field of a local (``float &r = s[i];``,
    a ``T &`` parameter of an inlined function): reading or writing the name reads or writes
    ``target`` itself.  A reference to a whole local is bound to that local's variable."""

    target: K.LValue


@dataclass
class ObjectBinding:
    """An object whose class has reference or pointer members (a CUB-style ``BlockReduce``
    holding ``TempStorage &temp``): not a value but what its members stand for, by member
    name, fixed by its constructor's initialisers.  Value members are variables."""

    record: str
    fields: dict[str, Binding] = field(default_factory=dict)
    #: control depth where the object was made: a pointer member set deeper (in a branch or
    #: loop) would name a different array on each path, which a binding cannot
    depth: int = 0


@dataclass(eq=False)
class DynPointer:
    """A pointer variable whose base is not one array on every path (swapped double
    buffers, ``cond ? a : b``, set in a branch): GPUVerify's pointer value, a pair (base,
    offset) (papers/001 §4, papers/002 §3) held in two KPL variables: ``tag`` numbers the
    base (0 is null, :class:`PointsTo`), ``off`` the offset in that base's unit (elements of
    the memory, or bytes for a byte view).  Every access through it is a guarded choice over
    its possible bases (:mod:`kpl.frontend.pointers`)."""

    ident: str  # clang declaration id of the variable
    name: str
    pointee: K.CType
    tag: K.Var
    off: K.Var


@dataclass(eq=False)
class PointerArray:
    """A local array of pointers (``float *bufs[2] = {a, b}``): each element a pointer value
    (:class:`DynPointer`) of its own, all sharing the array's set of bases (``ident``);
    ``bufs[k]`` is a choice over the elements by ``k`` (:mod:`kpl.frontend.pointers`)."""

    ident: str
    name: str
    pointee: K.CType
    slots: list[DynPointer]


@dataclass
class PointsTo:
    """The points-to facts of one kernel, kept across translation attempts
    (:class:`RetryTranslation`): which pointer variables are values (:class:`DynPointer`),
    the bases each may hold (by declaration id), and the number of every base."""

    dynamic: set[str] = field(default_factory=set)
    bases: dict[str, set[int]] = field(default_factory=dict)
    #: base number -> (memory name, byte view or None); 0 is null
    numbers: dict[tuple[str, K.CType | None], int] = field(default_factory=dict)
    memories: dict[str, K.Memory] = field(default_factory=dict)
    #: local scalars (by declaration id) held in a one-cell private memory: a pointer to
    #: them is set again or is a value, which an alias of the variable cannot follow
    addressed: set[str] = field(default_factory=set)

    def number(self, mem: K.Memory, view: K.CType | None) -> int:
        self.memories.setdefault(mem.name, mem)
        return self.numbers.setdefault((mem.name, view), len(self.numbers) + 1)

    def base(self, number: int) -> tuple[K.Memory, K.CType | None]:
        for (name, view), n in self.numbers.items():
            if n == number:
                return self.memories[name], view
        raise KeyError(number)


@dataclass
class LocalPointer:
    """A pointer to a thread-private scalar (``swap(&x, &y)``, ``float *p = &x``): ``*p``
    reads and writes the variable itself.  Set again, it makes the variable a one-cell
    memory (:attr:`PointsTo.addressed`)."""

    var: K.Var
    ident: str = ""  # the variable's declaration id


@dataclass
class PointerRef:
    """A pointer to a pointer variable (``float **pp = &p``, ``&cursor`` passed to a device
    function): ``*pp`` is the variable ``ident`` of scope ``home`` itself, read and set."""

    home: Scope
    ident: str
    name: str


class RetryTranslation(Exception):
    """The points-to facts grew (a pointer turned out to be a value, or to reach one more
    base) after code through it was translated: translate the kernel again from the start."""


class Split(Exception):
    """Raised where a static pointer binding is needed but the name is a :class:`DynPointer`:
    the innermost expression or leaf statement translating it catches it and translates
    itself once per possible base (:mod:`kpl.frontend.pointers`)."""

    def __init__(self, ident: str, dyn: DynPointer, home: Scope | None = None) -> None:
        super().__init__(dyn.name)
        self.ident = ident
        self.dyn = dyn
        self.home = home  # the scope binding it, when not the one translating (``*pp``)

    def caught_in(self, scope: Scope) -> Scope | None:
        """The scope to rebind in, when the translation in ``scope`` may split over it."""
        home = self.home or scope
        return home if home.lookup(self.ident) is self.dyn else None


#: What a declaration stands for in a scope.
Binding = (K.Var | K.Memory | PointerBinding | ScalarMemory | UnboundPointer | UnknownPointer | Alias
           | ObjectBinding | DynPointer | PointerRef | LocalPointer | PointerArray)


@dataclass
class Scope:
    """Lexical scope: clang declaration ids → KPL variables, memories or pointer bindings."""

    parent: Scope | None = None
    names: dict[str, Binding] = field(default_factory=dict)

    def lookup(self, decl_id: str) -> Binding | None:
        scope: Scope | None = self
        while scope is not None:
            found = scope.names.get(decl_id)
            if found is not None:
                return found
            scope = scope.parent
        return None

    def rebind(self, decl_id: str, value: Binding) -> None:
        here: Scope | None = self
        while here is not None:
            if decl_id in here.names:
                here.names[decl_id] = value
                return
            here = here.parent
        self.names[decl_id] = value


@dataclass
class AnnotationFrame:
    """The annotations of one function being translated (:mod:`kpl.frontend.annotations`):
    its ``__ensures`` (temporaries its condition reads, condition, where written, Assert
    kind), checked at each ``return`` and at its end;
    its ``__function_wide_invariant`` conditions (clang nodes, translated at each loop) and
    the ids of its contract statements (the annotation calls its body starts with: where
    ``__old_int`` & co. read the values at entry), both found when first needed."""

    func: Node
    ensures: list[tuple[list[K.Stmt], K.Expr, K.Span | None, str]] = field(default_factory=list)
    wide: list[tuple[Node, bool]] | None = None
    contract: set[str] | None = None


@dataclass
class Unit:
    """One translation unit as clang gave it, shared by the kernels of a file."""

    path: str  # the kernel file as the user named it
    text: str  # its original text
    clang_main: str  # the name clang used for it
    tu: Node  # clang's whole translation unit
    index: tree.DeclIndex
    types: TypeTable
    source: SourceText
    position: tree.Position
    bundled_dir: str  # our headers' folder: a bodiless function declared there is modelled
    files: dict[str, str] = field(default_factory=dict)  # other user files: real path -> text
    globals: Scope = field(default_factory=Scope)
    memories: dict[str, K.Memory] = field(default_factory=dict)
    language: str = "cuda"  # or "opencl" (kpl.frontend.opencl)
    gpuverify_style: bool = False  # the file has GPUVerify's flags line (kpl.header.KernelHeader)
    options: frozenset[str] = frozenset()  # the names of GPUVerify's options on that line
    work_dim: int | None = None  # the dimensions of its block size (OpenCL's get_work_dim())
    #: file-scope variables with no memory space read as global memory, as GPUVerify does
    host_globals: dict[str, Node] = field(default_factory=dict)  # name -> declaration
    gpuverify_parts: list[str] = field(default_factory=list)  # clang.GPUVERIFY_PARTS it read
    noted_parts: set[str] = field(default_factory=set)  # of those, the ones already noted
    overrides: dict[tuple[str, str], Node] | None = None  # kpl.frontend.overrides, once computed
    #: ``file:line:col: note: …`` lines for the user, each once per file (Unit.note)
    notes: list[str] = field(default_factory=list)

    def note(self, message: str, line: int | None = None, col: int | None = None, *,
             kind: str = "note") -> None:
        """Say ``message`` once for this file, at ``line:col`` when given (printed by ``check``
        and ``fix``); ``kind="warning"``: analysed although a compiler refuses it."""
        where = self.path + (f":{line}:{col or 1}" if line else "")
        text = f"{where}: {kind}: {message}"
        if text not in self.notes:
            self.notes.append(text)


#: statements that own blocks: a pointer value is split in their leaves, never around them
_COMPOUND_KINDS = {"IfStmt", "ForStmt", "WhileStmt", "DoStmt", "SwitchStmt", "CompoundStmt",
                   "LabelStmt", "AttributedStmt"}


class TranslatorBase:
    """State of translating one ``__global__`` function, plus the dispatch over node kinds.

    :meth:`block` and :meth:`effects` are declared here because expressions and calls
    recurse into them (defined in :mod:`kpl.frontend.stmts`)."""

    def __init__(self, unit: Unit, func: Node, launch: K.Launch, display_name: str) -> None:
        self.unit = unit
        self.index = unit.index
        self.types = unit.types
        self.source = unit.source
        self.func = func
        self.launch = launch
        self.display_name = display_name
        self.path = unit.path
        self.label_counter = 0  # next KPL label
        self.temp_counter = 0  # next synthetic temporary
        self.var_names: set[str] = set()  # KPL variable names in use (kept unique)
        self.memories: dict[str, K.Memory] = dict(unit.memories)  # every memory the kernel touches
        self.requires: list[K.Expr] = []  # ``__requires`` preconditions
        #: the annotations of each function being translated, innermost last
        #: (kpl.frontend.annotations): the kernel's own first
        self.frames: list[AnnotationFrame] = [AnnotationFrame(func)]
        #: while an ``__ensures`` of a contract is read: where ``__old_int(e)`` reads ``e``
        self.old_snapshots: list[K.Stmt] | None = None
        #: > 0 inside ``__other_int(...)`` (the other thread's value) or a global annotation:
        #: ``__enabled()`` is then the thread's predicate, not true
        self.partner_depth = 0
        #: goto regions being translated, innermost last: (label, "exit"/"loop", flag)
        self.goto_targets: list[tuple[str, str, K.Var | None]] = []
        self.uses_named = False  # saw a named barrier
        self.call_stack: list[str] = [str(func.get("id"))]  # functions being inlined (by id)
        self.inline_depth = 0  # > 0 inside an inlined body (nothing placeable there)
        self.bundled_call: Node | None = None  # the user's call into our headers being inlined
        self.sync_epoch: K.Var | None = None  # counts __syncthreads_or & co.: one result each
        self.control_depth = 0  # > 0 inside a loop or branch
        self.result_vars: list[K.Var | None] = []  # return slot of each inlined call
        self.current_func = str(func.get("name", ""))  # function whose locals are declared
        self.this_stack: list[PointerBinding | K.Var | Alias | ObjectBinding | None] = []  # `this` of methods
        self.pointer_results: list[Any] = []  # return slots of inlined pointer-returning calls
        self.points_to = PointsTo()  # replaced by the kernel's own across attempts
        self.pointer_depth: dict[str, int] = {}  # control depth where each pointer was bound
        self.dyn_tags: dict[str, DynPointer] = {}  # tag variable name -> its pointer value

    # ------------------------------------------------------------------ utilities

    def label(self) -> int:
        self.label_counter += 1
        return self.label_counter - 1

    def where(self, node: Node | None) -> tuple[str, int | None, int | None]:
        """(file, line, column) of ``node``'s start, in the user's terms."""
        loc = None if node is None else \
            tree.location(node.get("range", {}).get("begin")) or tree.location(node.get("loc"))
        if loc is None:
            return self.path, None, None
        clang_file = str(loc.get("file", ""))
        if self.bundled_call is not None and clang_file.startswith(self.unit.bundled_dir):
            return self.where(self.bundled_call)  # the user wrote the call, not our header's body
        file, text = self.display_file(clang_file), self.text_of(clang_file)
        if text is None:
            return file, loc.get("line"), loc.get("col")
        pos = self._char(clang_file, int(loc["offset"]))
        return (file, *(SourceText(text) if text is not self.source.text else self.source).line_col(pos))

    def display_file(self, clang_file: str) -> str:
        """How the user names ``clang_file``: the kernel's path as given, a header relative to
        it (``inc/vec.h`` next to ``k.cu``), one of our headers as ``<autosync>/name``."""
        if clang_file == self.unit.clang_main or not clang_file:
            return self.path
        if clang_file.startswith(self.unit.bundled_dir):
            return "<autosync>/" + os.path.relpath(clang_file, self.unit.bundled_dir)
        main_dir = os.path.dirname(os.path.abspath(self.path))
        return os.path.normpath(os.path.join(os.path.dirname(self.path), os.path.relpath(clang_file, main_dir)))

    def text_of(self, clang_file: str) -> str | None:
        if clang_file == self.unit.clang_main or not clang_file:
            return self.source.text
        return self.unit.files.get(clang_file)

    def _char(self, clang_file: str, offset: int) -> int:
        if clang_file == self.unit.clang_main or not clang_file:
            return self.unit.position.char(offset)
        return offset

    def error(self, message: str, node: Node | None = None) -> KplError:
        return KplError(message, *self.where(node))

    def ctype(self, text: str, node: Node | None = None) -> K.CType:
        try:
            return self.types.ctype(text)
        except UnsupportedType as exc:
            raise self.error(f"unsupported: {exc}", node) from None

    def type_of(self, node: Node) -> K.CType:
        return self.ctype(tree.qual_type(node), node)

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

    # ------------------------------------------------------------------ spans

    def span_of(self, node: Node, *, decl: bool = False) -> K.Span | None:
        """The statement's extent in the original text (start to just past its ``;`` or
        closing brace), or a position-only span when it is not verbatim in the kernel's file
        (a macro expansion, an included header)."""
        rng = node.get("range", {})
        begin = rng.get("begin") or {}
        loc = tree.location(begin)
        if loc is None:
            return None
        clang_file = str(loc.get("file", ""))
        if clang_file != self.unit.clang_main:
            file, line, col = self.where(node)
            return K.Span(file, line or 0, col or 0)
        start = self.unit.position.char(int(loc["offset"]))
        line, col = self.source.line_col(start)
        if decl:
            start = self.source.declaration_start(start)
            line, col = self.source.line_col(start)
        end = self.source.statement_end(start)
        if end < 0:
            return K.Span(self.path, line, col)
        end_line, end_col = self.source.line_col(end)
        return K.Span(self.path, line, col, end_line, end_col, start, end)

    def block_source(self, node: Node | None) -> K.BlockSource:
        """Offsets of a compound statement's braces in the original text (none if unbraced)."""
        if node is None or tree.kind(node) != "CompoundStmt":
            return K.BlockSource()
        span = self.span_of(node)
        if span is None or span.start < 0 or self.source.text[span.start] != "{":
            return K.BlockSource()
        return K.BlockSource(span.start, span.end - 1)

    # ------------------------------------------------------------------ dispatch

    def statement(self, node: Node, scope: Scope) -> list[K.Stmt]:
        method = getattr(self, "stmt_" + tree.kind(node), None)
        if method is None:
            if not tree.kind(node).endswith(("Expr", "Operator", "Literal", "ExprWithCleanups")):
                raise self.error(f"unsupported construct: {tree.kind(node)}", node)
            method = self.effects
        try:
            result: list[K.Stmt] = method(node, scope)
        except Split as split:
            if split.caught_in(scope) is None or tree.kind(node) in _COMPOUND_KINDS:
                raise
            return self.split_statement(split, node, scope)
        return result

    def expr(self, node: Node, scope: Scope, pre: list[K.Stmt]) -> K.Expr:
        method = getattr(self, "expr_" + tree.kind(node), None)
        if method is None:
            raise self.error(f"unsupported expression: {tree.kind(node)}", node)
        mark = len(pre)
        try:
            value: K.Expr = method(node, scope, pre)
        except Split as split:
            if split.caught_in(scope) is None:
                raise
            del pre[mark:]
            return self.split_expr(split, node, scope, pre)
        return value

    def split_expr(self, split: Split, node: Node, scope: Scope, pre: list[K.Stmt]) -> K.Expr:
        """``node`` once per base of a pointer value: :mod:`kpl.frontend.pointers`."""
        raise NotImplementedError

    def split_statement(self, split: Split, node: Node, scope: Scope) -> list[K.Stmt]:
        """A leaf statement once per base of a pointer value: :mod:`kpl.frontend.pointers`."""
        raise NotImplementedError

    def expr_pure(self, node: Node, scope: Scope | None = None) -> K.Expr:
        pre: list[K.Stmt] = []
        value = self.expr(node, scope or self.unit.globals, pre)
        if pre:
            raise self.error("expression with side effects where a constant is expected", node)
        return value

    # ------------------------------------------------------------------ recursion points

    def block(self, node: Node | None, scope: Scope, *, main: bool = False,
              placeable: bool = True) -> K.Block:
        """A (possibly unbraced) body as a KPL block: :meth:`kpl.frontend.stmts.StmtsTranslation.block`."""
        raise NotImplementedError

    def effects(self, node: Node, scope: Scope) -> list[K.Stmt]:
        """An expression evaluated for its side effects: see :mod:`kpl.frontend.stmts`."""
        raise NotImplementedError
