"""OpenCL host launches: ``clEnqueueNDRangeKernel`` calls whose sizes are constants (issue 29).

The OpenCL twin of the ``k<<<grid, block>>>`` launches :mod:`kpl.frontend.host` reads.  A
``.cl`` file may hold its host code next to its kernels, under ``#ifndef
__OPENCL_C_VERSION__``; clang's OpenCL C parse (``-x cl``) never sees it.  So a file that
names ``clEnqueueNDRangeKernel`` is parsed a second time as C (``-x c``, with our own
``include/CL/cl.h`` declaring the host API), and its AST is read here:

* a kernel object is a local ``cl_kernel k = clCreateKernel(program, "name", &err);`` that the
  function never writes again;
* ``clEnqueueNDRangeKernel(queue, k, dims, offset, global, local, …)`` runs ``k`` with
  ``local`` work-items per group (``blockDim``) and ``global / local`` groups per dimension
  (``gridDim``), 1 in the dimensions past ``dims``;
* ``global`` and ``local`` are arrays initialised with constants (``size_t g[2] = {1024,
  768};``) or the address of a constant scalar (``&n``), constants as
  :class:`kpl.frontend.host` evaluates them (macros, ``const`` and never-written locals).
  A local array or scalar is trusted only when every other use of it reads it (an element
  read, or another launch's size argument);
* the offset must be ``NULL``: the front end takes the global offset as 0 (``get_global_id``).

A launch that is not all of that (a ``NULL`` local size: the implementation's choice; a global
size that is not a multiple of the local one; a value not constant; a kernel object not known)
states no size: it is a launch with every dimension symbolic, never a guessed one, so that a
kernel launched once with constants and once otherwise is still checked for the other launch.
One whose kernel object is not known is counted for every kernel with a launch here.
GPUVerify reads the sizes from its header instead (papers/004); a header or the command line
still wins over these (:mod:`autosync.pipeline.launch`).
"""

from __future__ import annotations

from kpl.errors import KplError
from kpl.frontend import tree
from kpl.frontend.clang import INCLUDE_DIR, run_clang
from kpl.frontend.host import _Eval, _Function, _scan_function, _strip, _Unknown
from kpl.frontend.state import Unit
from kpl.frontend.tree import Node
from kpl.frontend.types import TypeTable
from kpl.launchfacts import HostLaunch
from kpl.spans import SourceText

ENQUEUE = "clEnqueueNDRangeKernel"
_CREATE = "clCreateKernel"
#: conversions between a size argument and the call (``size_t *`` → ``const size_t *``)
_POINTER_CASTS = {"NoOp", "BitCast"}
_UNKNOWN_DIMS = (None, None, None)


def _callee(call: Node) -> str | None:
    inner = tree.children(call)
    if tree.kind(call) != "CallExpr" or not inner:
        return None
    ref = _strip(inner[0])
    return str((ref.get("referencedDecl") or {}).get("name")) if tree.kind(ref) == "DeclRefExpr" else None


def _functions(unit: Unit) -> list[Node]:
    return [d for d in tree.children(unit.tu) if tree.kind(d) == "FunctionDecl" and tree.body_of(d) is not None]


def _walk(root: Node) -> list[tuple[Node, list[Node]]]:
    """Every node under ``root`` with its ancestors, nearest first."""
    out: list[tuple[Node, list[Node]]] = []
    stack: list[tuple[Node, list[Node]]] = [(root, [])]
    while stack:
        node, up = stack.pop()
        out.append((node, up))
        for c in tree.children(node):
            stack.append((c, [node, *up]))
    return out


def _size_use(up: list[Node], first: str, cast: str | None = None) -> bool:
    """Whether a reference under ancestors ``up`` is an operand ``first`` (a decay, an ``&``)
    passed on to a ``clEnqueueNDRangeKernel`` (read only: its size parameters are ``const``)."""
    if not up or tree.kind(up[0]) != first or (cast is not None and up[0].get("castKind") != cast):
        return False
    rest = up[1:]
    while rest and tree.kind(rest[0]) == "ImplicitCastExpr" and rest[0].get("castKind") in _POINTER_CASTS:
        rest = rest[1:]
    return bool(rest) and _callee(rest[0]) == ENQUEUE


def _read_only(uses: list[list[Node]]) -> bool:
    """Whether every use of a size variable only reads it: a value read, an element read, or
    a size argument of a launch."""
    for up in uses:
        if up and tree.kind(up[0]) == "ImplicitCastExpr" and up[0].get("castKind") == "LValueToRValue":
            continue
        if len(up) > 2 and tree.kind(up[0]) == "ImplicitCastExpr" and up[0].get("castKind") == "ArrayToPointerDecay" \
                and tree.kind(up[1]) == "ArraySubscriptExpr" and tree.kind(up[2]) == "ImplicitCastExpr" \
                and up[2].get("castKind") == "LValueToRValue":
            continue
        if _size_use(up, "ImplicitCastExpr", "ArrayToPointerDecay") or _size_use(up, "UnaryOperator"):
            continue
        return False
    return True


class _Host:
    """The launches of one host function."""

    def __init__(self, unit: Unit, func: Node) -> None:
        self.unit = unit
        self.info: _Function = _scan_function(func)
        self.ev = _Eval(unit, {}, self.info)
        body = tree.body_of(func)
        self.nodes = _walk(body) if body is not None else []
        self.uses: dict[str, list[list[Node]]] = {}
        for node, up in self.nodes:
            if tree.kind(node) == "DeclRefExpr":
                rid = str((node.get("referencedDecl") or {}).get("id"))
                self.uses.setdefault(rid, []).append(up)

    def calls(self) -> list[Node]:
        return [n for n, _ in self.nodes if _callee(n) == ENQUEUE]

    def kernel_name(self, arg: Node) -> str | None:
        """The name ``clCreateKernel`` gave the kernel object ``arg``, if that is known."""
        ref = _strip(arg)
        rid = str((ref.get("referencedDecl") or {}).get("id"))
        decl = self.info.decls.get(rid)
        if tree.kind(ref) != "DeclRefExpr" or decl is None or rid in self.info.written:
            return None
        init = self.ev._init(decl)
        if init is None or _callee(_strip(init)) != _CREATE or len(tree.children(_strip(init))) < 3:
            return None
        name = tree.children(_strip(init))[2]
        while tree.kind(name) == "ImplicitCastExpr" and tree.children(name):
            name = tree.children(name)[0]
        value = str(name.get("value", "")) if tree.kind(name) == "StringLiteral" else ""
        return value[1:-1] if len(value) > 2 and value[0] == value[-1] == '"' and "\\" not in value else None

    def _trusted(self, rid: str, decl: Node) -> bool:
        if rid in self.info.decls:
            return _read_only(self.uses.get(rid, []))
        return tree.qual_type(decl).startswith("const ")  # a global: only a const one

    def sizes(self, arg: Node, dims: int) -> tuple[int, int, int] | None:
        """The constant sizes ``arg`` points to (an array or ``&scalar``), 1 past ``dims``."""
        node = _strip(arg)
        while tree.kind(node) == "ImplicitCastExpr" and node.get("castKind") in _POINTER_CASTS | {"ArrayToPointerDecay"}:
            node = tree.children(node)[0]
        scalar = tree.kind(node) == "UnaryOperator" and node.get("opcode") == "&"
        if scalar:
            node = tree.children(node)[0]
        while tree.kind(node) == "ParenExpr":
            node = tree.children(node)[0]
        rid = str((node.get("referencedDecl") or {}).get("id"))
        decl = self.info.decls.get(rid) or self.unit.index.get(rid)
        if tree.kind(node) != "DeclRefExpr" or decl is None or tree.kind(decl) != "VarDecl" \
                or not self._trusted(rid, decl):
            return None
        base, shape = self.unit.types.split_array(tree.qual_type(decl))
        if scalar == bool(shape) or len(shape) > 1:
            return None
        try:
            typ = self.unit.types.ctype(base.replace("const ", ""))
        except Exception:  # noqa: BLE001 - not a type the table reads: not a size_t
            return None
        init = self.ev._init(decl)
        if typ.kind != "int" or typ.bits != 64 or typ.signed or init is None:
            return None
        items = [init] if scalar else tree.children(init) if tree.kind(init) == "InitListExpr" else []
        try:
            values = [self.ev.value(item, {}) for item in items[:dims]]
        except _Unknown:
            return None
        if len(values) < dims or not all(isinstance(v, int) and v > 0 for v in values):
            return None
        out = [int(v) for v in values] + [1, 1, 1]  # type: ignore[arg-type]
        return (out[0], out[1], out[2])

    def launch(self, call: Node) -> tuple[tuple[int, int, int], tuple[int, int, int]] | None:
        """(groups, local size) of ``call`` when all its sizes are constant (module docstring)."""
        args = tree.children(call)[1:]
        if len(args) < 6 or not _is_null(args[3]):
            return None
        try:
            dims = self.ev.value(args[2], {})
        except _Unknown:
            return None
        if not isinstance(dims, int) or dims not in (1, 2, 3):
            return None
        glob, local = self.sizes(args[4], dims), self.sizes(args[5], dims)
        if glob is None or local is None or any(g % s for g, s in zip(glob, local, strict=True)):
            return None
        return (glob[0] // local[0], glob[1] // local[1], glob[2] // local[2]), local


def _is_null(node: Node) -> bool:
    while tree.kind(node) in ("ImplicitCastExpr", "CStyleCastExpr", "ParenExpr") and tree.children(node):
        node = tree.children(node)[0]
    return tree.kind(node) == "IntegerLiteral" and str(node.get("value")) == "0"


def _where(unit: Unit, node: Node) -> tuple[int, int]:
    loc = tree.location(node.get("range", {}).get("begin"))
    if loc is None or loc.get("file", unit.clang_main) != unit.clang_main:
        return 0, 0
    return unit.source.line_col(unit.position.char(int(loc["offset"])))


def launches_in(unit: Unit) -> dict[str, list[HostLaunch]]:
    """The launches of each kernel (by name) in the host code of ``unit`` (parsed as C)."""
    found: dict[str, list[HostLaunch]] = {}
    unnamed: list[HostLaunch] = []
    for func in _functions(unit):
        host = _Host(unit, func)
        for call in host.calls():
            line, col = _where(unit, call)
            sizes = host.launch(call)
            grid, block = sizes if sizes is not None else (_UNKNOWN_DIMS, _UNKNOWN_DIMS)
            launch = HostLaunch(unit.path, line, col, grid, block)
            name = host.kernel_name(tree.children(call)[2]) if len(tree.children(call)) > 2 else None
            if name is None:
                unnamed.append(HostLaunch(unit.path, line, col, _UNKNOWN_DIMS, _UNKNOWN_DIMS))
            else:
                found.setdefault(name, []).append(launch)
    for launches in found.values():
        launches.extend(unnamed)
    return found


def opencl_launches(path: str, text: str, *, defines: dict[str, str] | None = None,
                    include_dirs: list[str] | None = None, clang: str | None = None) -> dict[str, list[HostLaunch]]:
    """The ``clEnqueueNDRangeKernel`` launches of each kernel in the host code of ``text`` (the
    file ``path``), by kernel name.  A file clang cannot read as C states none (its kernels'
    launches then stay symbolic: sound)."""
    if ENQUEUE not in text:
        return {}
    try:
        result = run_clang(path, text, defines=defines, include_dirs=include_dirs, clang=clang, language="c")
    except KplError:
        return {}
    index = tree.DeclIndex(result.ast)
    unit = Unit(path=path, text=text, clang_main=result.main_file, tu=result.ast, index=index,
                types=TypeTable(index), source=SourceText(text), position=tree.Position(text),
                bundled_dir=INCLUDE_DIR, files=result.files, language="c")
    return launches_in(unit)


__all__ = ["ENQUEUE", "launches_in", "opencl_launches"]
