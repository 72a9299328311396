"""The KPL abstract syntax tree (Fig. 8 of the AutoSync paper, extended to real CUDA).

KPL is the small kernel language every other part of AutoSync works on: the paper's grammar
(Fig. 8), extended for real kernels while keeping its rule intact: *every memory access
happens inside a labelled leaf statement*.  Conditions of ``If``/``Loop`` are memory-free;
a CUDA condition that reads memory (``while (A[i] > 0)``) is hoisted into a synthetic leaf
``Assign(tmp, cond)`` (Fig. 9's ``p := e``), ``placeable=False`` since no barrier can go
between a condition and its statement.  A C statement with several accesses
(``A[i] = B[i] + A[i+1]``) is ONE leaf (CONTRIBUTING.md, "Labels").

Labels are small integers unique within a kernel.  ``If``/``Loop``/``Switch``/``Inline`` labels
double as the labels of their blocks (Sec. III-A); the ``else`` branch is a block of its own with
a fresh label, placed right after the ``if`` in the label tree (the desugaring ``p := e; if p A;
if !p B``).  Every block also has a start label (ℓ_s).  Modelled on pycparser's ``c_ast``
(dataclasses, a class-name :class:`NodeVisitor`).  Why one piece of ~600 lines: the one
vocabulary every stage shares; splitting it lengthens imports.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from dataclasses import field as dc_field  # for classes with a member named ``field``
from enum import Enum
from typing import Any

from kpl.launch import MAX_BLOCK_DIM as MAX_BLOCK_DIM  # the launch, re-exported: K.Launch
from kpl.launch import MAX_GRID_DIM as MAX_GRID_DIM
from kpl.launch import MAX_THREADS_PER_BLOCK as MAX_THREADS_PER_BLOCK
from kpl.launch import Dim3 as Dim3
from kpl.launch import Launch as Launch
from kpl.launch import LaunchDim as LaunchDim
from kpl.placement import BarrierKind

# --------------------------------------------------------------------------- types

@dataclass(frozen=True)
class CType:
    """A C value type, reduced to what the verifiers need.  ``kind`` is ``int``, ``float``,
    ``bool``, ``vec`` (``float4``: ``elem`` the component type, ``fields`` the component
    names; a struct/union: ``parts`` its members in order, "" for a base or anonymous one,
    laid out by kpl.ctypes, ``fields`` its leaf paths ``pos.x``), ``ptr`` (``elem`` the
    pointee) or ``void``.  Integers carry width and signedness: index arithmetic (``>>``,
    unsigned wrap, ``/``) must be modelled exactly."""

    kind: str
    bits: int = 32
    signed: bool = True
    name: str = ""
    elem: CType | None = None
    fields: tuple[str, ...] = ()
    parts: tuple[tuple[str, CType], ...] = field(default=(), repr=False)
    align: int = field(default=0, repr=False)  # __align__(n) / alignas(n), 0: natural
    union: bool = field(default=False, repr=False)  # every member at offset 0

    def __str__(self) -> str:
        return self.name or self.kind


INT = CType("int", 32, True, "int")
UINT = CType("int", 32, False, "unsigned int")
LONG = CType("int", 64, True, "long long")
ULONG = CType("int", 64, False, "unsigned long long")
BOOL = CType("bool", 1, False, "bool")
FLOAT = CType("float", 32, True, "float")
DOUBLE = CType("float", 64, True, "double")
VOID = CType("void", 0, False, "void")
#: a :class:`Call` of GPUVerify's bodiless function, new per call and thread (kpl.frontend.bodiless)
ARBITRARY = "__arbitrary."


class Space(str, Enum):
    """Memory spaces.  Only SHARED and GLOBAL accesses can race; TEXTURE and CONSTANT are
    read-only and LOCAL arrays are private to a thread."""

    SHARED = "shared"
    GLOBAL = "global"
    CONSTANT = "constant"
    TEXTURE = "texture"
    LOCAL = "local"


ALL_FENCES: frozenset[Space] = frozenset({Space.SHARED, Space.GLOBAL})  # racing; a barrier orders


@dataclass(frozen=True)
class Memory:
    """An array in some memory space: a ``__shared__`` array, a pointer parameter (global
    memory), a ``__constant__`` array, a texture, or a thread-local array.

    ``dims`` are the declared extents, outermost first (``None`` where unknown, e.g. an
    ``extern __shared__`` array or a pointer).  Indices in :class:`Load`/:class:`MemElem` are
    already flattened to one element offset, so two accesses conflict exactly when their
    ``index`` values are equal.
    """

    name: str
    space: Space
    elem: CType
    dims: tuple[int | None, ...] = (None,)
    #: known contents, one integer per element (an OpenCL program-scope ``__constant``)
    init: tuple[int, ...] | None = field(default=None, compare=False, repr=False)

    @property
    def can_race(self) -> bool:
        return self.space in ALL_FENCES


# --------------------------------------------------------------------------- source


@dataclass(frozen=True)
class Span:
    """Where a node is in the ORIGINAL source text (before preprocessing).

    Lines and columns are 1-based; ``end_line``/``end_col`` point just past the last
    character.  ``start``/``end`` are character offsets into ``file``'s text (end exclusive),
    or -1 when the node does not come from that text verbatim (macro expansion whose extent
    is unknown, synthetic nodes).
    """

    file: str
    line: int
    col: int
    end_line: int = 0
    end_col: int = 0
    start: int = -1
    end: int = -1

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


# --------------------------------------------------------------------------- expressions


@dataclass(frozen=True)
class Const:
    value: int | float | bool
    type: CType = INT


@dataclass(frozen=True)
class Var:
    """A thread-private scalar (or vector) variable: a local or a scalar parameter."""

    name: str
    type: CType = INT


@dataclass(frozen=True)
class Builtin:  # ``threadIdx``/``blockIdx``/``blockDim``/``gridDim``, ``dim`` in x/y/z

    name: str
    dim: str
    type: CType = UINT


@dataclass(frozen=True)
class Unary:
    op: str  # '-', '!', '~'
    operand: Expr
    type: CType = INT


@dataclass(frozen=True)
class Binary:
    """Binary operator.  ``&&`` and ``||`` short-circuit: reads in ``right`` happen only when
    ``left`` does not decide the result ([LockStep], on short-circuit evaluation)."""

    op: str
    left: Expr
    right: Expr
    type: CType = INT


@dataclass(frozen=True)
class Cond:
    """``c ? a : b`` -- only the chosen arm's reads happen."""

    cond: Expr
    then: Expr
    els: Expr
    type: CType = INT


@dataclass(frozen=True)
class Cast:
    type: CType
    operand: Expr


@dataclass(frozen=True)
class Load:
    """A read of ``mem[index]`` (``rd`` in Fig. 8).  ``field`` selects a vector component."""

    mem: Memory
    index: Expr
    type: CType
    field: str | None = None
    #: byte view (after a pointer cast): ``index`` is a BYTE offset, the access ``sizeof(view)`` bytes
    view: CType | None = dc_field(default=None, repr=False)


@dataclass(frozen=True)
class Call:
    """A call to an opaque pure function: math intrinsics, warp intrinsics, ``make_float4``.
    Its value depends only on its arguments (``uniform`` calls such as ``__shfl`` are modelled
    as unconstrained values, and a name starting with :data:`ARBITRARY` as a fresh one)."""

    name: str
    args: tuple[Expr, ...]
    type: CType = INT


@dataclass(frozen=True)
class Atomic:
    """An atomic read-modify-write of ``mem[index]`` (``atomicAdd`` …); evaluates to the old
    value.  Atomics do not race with atomics, but do with plain accesses ([WarpsAtomics] Sec. 4)."""

    op: str
    mem: Memory
    index: Expr
    args: tuple[Expr, ...]
    type: CType = INT
    view: CType | None = field(default=None, repr=False)  # a byte view, as in :class:`Load`


@dataclass(frozen=True)
class Field:
    """Component ``name`` of a vector-typed value (``v.x``)."""

    base: Expr
    name: str
    type: CType = FLOAT


@dataclass(frozen=True)
class VecInit:
    """A vector value built from its components (``{0, 0, 0}``, ``make_float3(a, b, c)``)."""

    type: CType
    parts: tuple[Expr, ...]


@dataclass(frozen=True)
class Spec:
    """A GPUVerify specification function in an annotation: ``other`` (``__other_int``),
    ``same_group``, ``enabled`` (``__enabled()`` of the other thread: its predicate),
    ``read``/``write``, ``*_offset``, ``*_implies`` (kpl.frontend.annotations)."""

    name: str
    args: tuple[Expr, ...] = ()
    mem: Memory | None = None
    type: CType = BOOL


Expr = Const | Var | Builtin | Unary | Binary | Cond | Cast | Load | Call | Atomic | Field | VecInit | Spec
#: the fields of each expression class that hold sub-expressions, in evaluation order
_SUBEXPRS: dict[type, tuple[str, ...]] = {
    Unary: ("operand",), Binary: ("left", "right"), Cond: ("cond", "then", "els"), Cast: ("operand",),
    Load: ("index",), Atomic: ("index", "args"), Call: ("args",), Field: ("base",),
    VecInit: ("parts",), Spec: ("args",)}


# --------------------------------------------------------------------------- lvalues


@dataclass(frozen=True)
class VarField:
    """Component ``name`` of a local vector variable, as an assignment target."""

    var: Var
    name: str


@dataclass(frozen=True)
class MemElem:
    """``mem[index]`` (optionally ``.field``) as an assignment target (``wr`` in Fig. 8)."""

    mem: Memory
    index: Expr
    field: str | None = None
    view: CType | None = dc_field(default=None, repr=False)  # a byte view, as in :class:`Load`


LValue = Var | VarField | MemElem


# --------------------------------------------------------------------------- statements


@dataclass(eq=False)
class Stmt:
    """Base class of all statements.  ``label`` is unique in the kernel; ``span`` locates the
    whole statement in the original text; ``placeable`` says whether a barrier may be
    rendered right after this statement (False for synthetic leaves, for-headers, the
    then-branch of an if/else, and code inlined from ``__device__`` functions)."""

    label: int = field(default=-1, kw_only=True)
    span: Span | None = field(default=None, kw_only=True)
    placeable: bool = field(default=True, kw_only=True)
    synthetic: bool = field(default=False, kw_only=True)


@dataclass(eq=False)
class Decl(Stmt):
    """``local name`` with an optional initialiser; ``array`` for thread-local arrays."""

    var: Var
    init: Expr | None = None
    array: Memory | None = None


@dataclass(eq=False)
class Assign(Stmt):
    """``target = value``.  ``async_copy``: one work-item's element of an OpenCL async copy
    (``async_work_group_copy``, :mod:`kpl.frontend.opencl`): its read of ``value`` and its
    write of ``target`` are the copy's accesses, which a later :class:`WaitEvents` completes;
    the frontend makes ``value`` the one read and both indices free of memory accesses."""

    target: LValue
    value: Expr
    async_copy: bool = field(default=False, kw_only=True, repr=False)  # snapshots: as before


@dataclass(eq=False)
class ExprStmt(Stmt):
    """An expression evaluated for its effects (atomics, opaque calls)."""

    expr: Expr


@dataclass(eq=False)
class Barrier(Stmt):
    """``__syncthreads()``, OpenCL ``barrier(...)`` or ``__syncwarp()``; ``spelling`` as written.
    ``fences``: the spaces whose accesses it orders (CUDA: both; OpenCL: its flags); it
    synchronises execution whatever they are (divergence rules do not depend on them).
    ``fixed``: part of an expression (``v = __syncthreads_or(p)``), so synthesis neither
    removes nor moves it (:func:`kpl.transform.barrier_anchors`)."""

    spelling: str = "__syncthreads()"
    kind: BarrierKind = field(default=BarrierKind.SYNCTHREADS, repr=False)  # spelling shows it
    fences: frozenset[Space] = field(default=ALL_FENCES, repr=False)
    fixed: bool = field(default=False, repr=False)


@dataclass(eq=False)
class WaitEvents(Stmt):
    """OpenCL's ``wait_group_events``: completes, for the whole work-group, the async copies
    (``Assign.async_copy``) issued before it -- and nothing else.  NOT a :class:`Barrier`
    (OpenCL C 1.2 §6.12.10 promises only the copies): synthesis neither counts nor places it;
    a work-group function: every work-item must reach it (else: divergence).  ``completes``:
    False where it does not name every copy in flight (:mod:`kpl.frontend.opencl_events`)."""

    spelling: str = "wait_group_events"
    completes: bool = field(default=True, kw_only=True)


@dataclass(eq=False)
class NamedBarrier(Stmt):
    """PTX ``bar.sync b, n`` (``op='sync'``, blocks) or ``bar.arrive b, n`` (does not block).
    ``count`` is None when the PTX omits it (all threads of the CTA)."""

    op: str
    barrier: Expr
    count: Expr | None = None


@dataclass(eq=False)
class Assume(Stmt):
    """``__requires(e)`` / ``__assume(e)``: executions where ``e`` is false are ignored."""

    cond: Expr
    kind: str = "assume"


@dataclass(eq=False)
class Assert(Stmt):
    """A checked annotation (``kind``: ``assert``, ``requires`` of an inlined function,
    ``ensures``, loop ``invariant``): false for an enabled thread is an ``assertion`` error."""

    cond: Expr
    kind: str = "assert"


@dataclass(eq=False)
class Annotation(Stmt):
    """An annotation with no effect; ``args`` of ``__invariant`` = a candidate loop invariant."""

    name: str
    args: tuple[Expr, ...] = ()


@dataclass(eq=False)
class Break(Stmt):
    """``break``."""


@dataclass(eq=False)
class Continue(Stmt):
    """``continue``."""


@dataclass(eq=False)
class Return(Stmt):
    """Leaves the kernel -- or, inside an :class:`Inline` block, the inlined function, after
    storing ``value`` into that block's ``result`` variable."""

    value: Expr | None = None


@dataclass
class BlockSource:
    """Where a block's text is: offsets of ``{`` and ``}`` (-1 when the block has no braces,
    e.g. the single-statement body of an ``if``), used to render a barrier "after ℓ_s"."""

    open_brace: int = -1
    close_brace: int = -1


@dataclass(eq=False)
class Block:
    """A sequence of statements.  ``label`` is the owning compound statement's label (or the
    kernel's ``main`` label); ``start_label`` is ℓ_s, the block's leftmost child."""

    stmts: list[Stmt]
    label: int = -1
    start_label: int = -1
    source: BlockSource = field(default_factory=BlockSource)
    placeable_start: bool = True
    span: Span | None = None


@dataclass(eq=False)
class If(Stmt):
    """``if (cond) then else els``.  ``then.label == label``; ``els`` has its own label."""

    cond: Expr
    then: Block
    els: Block | None = None


@dataclass(eq=False)
class Loop(Stmt):
    """``for``/``while``/``do`` loop.  Under SDV it iterates while ``cond`` holds for ANY
    thread (Fig. 9).  ``latch`` holds the for-step and any hoisted re-evaluation of the
    condition: leaves executed after ``body`` in every iteration, after threads that
    executed ``continue`` are re-enabled; they follow the body's statements in the label tree.
    ``test_first`` is False for ``do … while``.  ``body.label == label``."""

    cond: Expr
    body: Block
    latch: list[Stmt] = field(default_factory=list)
    kind: str = "for"
    test_first: bool = True


@dataclass(eq=False)
class Switch(Stmt):
    """``switch``, lowered by the front end to a chain of ``If``s over a fall-through flag
    inside ``body``; ``break`` inside it leaves the switch (a loop that runs once)."""

    body: Block


@dataclass(eq=False)
class Inline(Stmt):
    """A ``__device__`` function call inlined at its call site.  ``return`` inside ``body``
    stores into ``result`` (if any) and leaves the block."""

    function: str
    body: Block
    result: Var | None = None


COMPOUND = (If, Loop, Switch, Inline)


# --------------------------------------------------------------------------- kernel


@dataclass(frozen=True)
class Param:
    """A kernel parameter: a scalar (``var``) or a pointer to global memory (``mem``)."""

    name: str
    type: CType
    var: Var | None = None
    mem: Memory | None = None


@dataclass(frozen=True)
class RequiredSize:
    """OpenCL C's ``__attribute__((reqd_work_group_size(X, Y, Z)))`` on a kernel: the only
    local size it may be enqueued with (OpenCL C 1.2 §6.7.2), so the block size it is checked
    under; ``file:line:col`` is where it is written (a launch stating another size is bad
    input, :func:`kpl.frontend.opencl.check_required_size`)."""

    dims: tuple[int, int, int]
    file: str
    line: int
    col: int


@dataclass(eq=False)
class Kernel:
    """One ``__global__`` function, lowered to KPL.

    ``body`` is the ``main`` block (label 0).  ``requires`` are the ``__requires`` assumptions
    on parameters (also present as :class:`Assume` statements at the top of the body).
    ``source_path``/``source_text`` are the ORIGINAL file, which spans index into.  ``expected``:
    the header verdict (``pass``/``xfail:…``) and ``// autosync: key=value`` facts.
    """

    name: str
    params: list[Param]
    body: Block
    launch: Launch
    source_path: str
    source_text: str
    memories: dict[str, Memory] = field(default_factory=dict)
    requires: list[Expr] = field(default_factory=list)
    expected: dict[str, str] = field(default_factory=dict)
    uses_named_barriers: bool = False
    launch_bounds: int | None = None  # ``__launch_bounds__(N)``: at most N threads a block
    required_size: RequiredSize | None = field(default=None, repr=False)  # reqd_work_group_size
    next_label: int = 0
    macros: dict[str, Any] = field(default_factory=dict, repr=False)  # name -> kpl.macros.MacroDef (#defines)
    language: str = field(default="cuda", repr=False)  # or "opencl" (kpl.frontend.opencl)
    #: the launches of this kernel in the host code of its file (kpl.launchfacts.HostLaunch)
    host_launches: list[Any] = field(default_factory=list, repr=False)
    notes: list[str] = field(default_factory=list, repr=False)  # the front end's ``note:`` lines for its file
    gpuverify_style: bool = field(default=False, repr=False)  # GPUVerify's flags line (kpl.header)
    options: frozenset[str] = field(default=frozenset(), repr=False)  # the names of its options

    def fresh_label(self) -> int:
        label = self.next_label
        self.next_label += 1
        return label


# --------------------------------------------------------------------------- traversal


def child_blocks(stmt: Stmt) -> list[Block]:
    """The blocks directly owned by a compound statement, in text order."""
    if isinstance(stmt, If):
        return [stmt.then] + ([stmt.els] if stmt.els is not None else [])
    if isinstance(stmt, (Loop, Switch, Inline)):
        return [stmt.body]
    return []


def walk_stmts(block: Block) -> Iterator[Stmt]:
    """Every statement under ``block`` in text order (pre-order), latches after bodies."""
    for stmt in block.stmts:
        yield stmt
        for sub in child_blocks(stmt):
            yield from walk_stmts(sub)
        if isinstance(stmt, Loop):
            yield from stmt.latch


def walk_expr(expr: Expr) -> Iterator[Expr]:
    """``expr`` and all its sub-expressions, pre-order."""
    yield expr
    for name in _SUBEXPRS.get(type(expr), ()):
        sub = getattr(expr, name)
        for part in sub if isinstance(sub, tuple) else (sub,):
            yield from walk_expr(part)


class NodeVisitor:
    """Dispatches ``visit(node, *args)`` to ``visit_<ClassName>(node, *args)``, else
    ``generic_visit`` (pycparser's ``c_ast.NodeVisitor``); extra arguments pass through, and
    the method of a (visitor class, node class) pair is cached: interpreters dispatch per node."""

    _dispatch: dict[tuple[type, type], Callable[..., Any]] = {}

    def visit(self, node: object, *args: Any) -> Any:
        key = (type(self), type(node))
        method = NodeVisitor._dispatch.get(key)
        if method is None:
            method = getattr(type(self), "visit_" + type(node).__name__, None)
            method = method or type(self).generic_visit
            NodeVisitor._dispatch[key] = method
        return method(self, node, *args)

    def generic_visit(self, node: object, *args: Any) -> Any:
        if isinstance(node, Block):
            for stmt in node.stmts:
                self.visit(stmt, *args)
        elif isinstance(node, Stmt):
            for sub in child_blocks(node):
                self.visit(sub, *args)
            if isinstance(node, Loop):
                for stmt in node.latch:
                    self.visit(stmt, *args)
        return None
