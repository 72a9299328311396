"""CUDA file → KPL kernels through clang: the front end's entry point.

:func:`load_kernels` runs clang on the file (:mod:`kpl.frontend.clang`), indexes its AST
(:mod:`kpl.frontend.tree`), and translates each ``__global__`` function with a body (each
instantiation of a kernel template) into a :class:`kpl.ast.Kernel` (:class:`Translator`).
clang's errors stop a kernel only when they are inside it or inside a function it calls;
an error in host code, or in a function no kernel reaches, does not.  The host launches of
an OpenCL C file (``clEnqueueNDRangeKernel``) are read from a second parse of it as C
(:mod:`kpl.frontend.opencl_host`).

Why one piece (over 400 lines): the translator's entry (parameters, body, the kernel record)
and the file-level steps around it (clang's run, the launch each kernel is checked under from
header, flags, attributes and host code) share the unit being read; split, each half would
import the other's state.
"""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Callable, Sequence
from typing import Any

from kpl import ast as K
from kpl.errors import KplError
from kpl.frontend import tree
from kpl.frontend.clang import INCLUDE_DIR, run_clang
from kpl.frontend.consteval import ConstEval
from kpl.frontend.decls import constant_contents, has_array_member, memory_space
from kpl.frontend.diagnostics import check_errors
from kpl.frontend.host import foreign_launches, host_calls, launches_of
from kpl.frontend.opencl import check_required_size, is_kernel, language_of, normalize, pointee_space
from kpl.frontend.opencl import required_size as opencl_required_size
from kpl.frontend.opencl_host import opencl_launches
from kpl.frontend.state import (
    PointerBinding,
    PointsTo,
    RetryTranslation,
    ScalarMemory,
    Split,
    Unit,
)
from kpl.frontend.stmts import StmtsTranslation
from kpl.frontend.tree import Node
from kpl.frontend.types import TypeTable, UnsupportedType
from kpl.header import KernelHeader, parse_header
from kpl.launchfacts import HostLaunch, restrict_unused
from kpl.macros import scan_macros
from kpl.spans import SourceText
from kpl.textio import encode_source, read_source

#: A launch dimension as the API takes it: ``256``, ``(16, 16)`` or ``(16, 16, 1)``.
Dim = int | Sequence[int | None] | None


class Translator(StmtsTranslation):
    """Translates one ``__global__`` function (and what it calls) to a :class:`K.Kernel`."""

    def translate(self, header: KernelHeader) -> K.Kernel:
        self.memory_decls = {}
        scope = self.unit.globals.__class__(self.unit.globals)
        params: list[K.Param] = []
        values: list[K.Stmt] = []  # pointer parameters that are values: their variables
        for p in tree.params_of(self.func):
            text = tree.qual_type(p)
            typ = self.ctype(text, p)
            name = str(p.get("name") or f"arg{len(params)}")
            record = self.object_record(p) if typ.kind != "ptr" else None
            if record is not None:  # a struct holding pointers: each member its own parameter
                scope.names[str(p["id"])] = self.parameter_object(name, record, params, values)
            elif typ.kind == "ptr":
                space = pointee_space(text) if self.unit.language == "opencl" else None
                mem = K.Memory(name, space if space in (K.Space.SHARED, K.Space.CONSTANT)
                               else K.Space.GLOBAL, typ.elem or K.INT, (None,))
                self.memories[name] = mem
                scope.names[str(p["id"])] = PointerBinding(mem, K.Const(0))
                if str(p["id"]) in self.points_to.dynamic:  # set in a loop or branch: a value
                    scope.names[str(p["id"])] = self.new_dyn(
                        str(p["id"]), name, typ.elem or K.VOID, PointerBinding(mem, K.Const(0)), values)
                params.append(K.Param(name, typ, mem=mem))
            else:
                var = K.Var(self.unique(name), typ)
                scope.names[str(p["id"])] = var
                params.append(K.Param(name, typ, var=var))
                if has_array_member(typ):  # indexed like a local holding arrays: a cell of its own
                    mem = K.Memory(self.unique(f"{name}.copy"), K.Space.LOCAL, typ, (1,))
                    self.memories[mem.name] = mem
                    scope.names[str(p["id"])] = ScalarMemory(mem)
                    values.append(K.Decl(K.Var(mem.name, K.CType("ptr", 64, False, "pointer", typ)),
                                         None, array=mem, label=self.label()))
                    values.append(K.Assign(self.location(mem, K.Const(0)), var, label=self.label()))
        try:
            body = self.block(tree.body_of(self.func), scope, main=True)
        except Split as split:
            raise self.error(f"unsupported: '{split.dyn.name}', a pointer that may point into "
                             "several arrays, used where one array is needed (in a loop or "
                             "branch condition, or a declaration)") from None
        for stmt in values:
            stmt.placeable, stmt.synthetic = False, True
        values[:0] = [K.Decl(self.sync_epoch, K.Const(0, K.UINT), label=self.label(), placeable=False,
                             synthetic=True)] if self.sync_epoch else []  # ours: no barrier goes after it
        body.stmts[:0] = values + self.kernel_args(header, params)
        body.stmts.extend(self.ensures_checks())  # the kernel's own __ensures, at its end
        for decl_id, binding in self.unit.globals.names.items():  # file-scope arrays count too
            cell = binding.mem if isinstance(binding, ScalarMemory) else binding
            if isinstance(cell, K.Memory) and cell.space == K.Space.SHARED and decl_id in self.index.by_id:
                self.memory_decls.setdefault(cell.name, self.index.by_id[decl_id])
        self.check_static_shared(body)
        kernel = K.Kernel(
            name=self.display_name, params=params, body=body, launch=self.launch,
            source_path=self.path, source_text=self.unit.text,
            memories=dict(self.memories), requires=list(self.requires),
            expected=dict(header.expected), uses_named_barriers=self.uses_named,
            language=self.unit.language,
        )
        if header.verdict:
            kernel.expected.setdefault("verdict", header.verdict)
        kernel.next_label = self.label_counter
        return kernel

    def kernel_args(self, header: KernelHeader, params: list[K.Param]) -> list[K.Stmt]:
        """GPUVerify's ``--kernel-args=K,v1,...``: kernel ``K``'s scalar arguments, in order,
        take these values (assumed, as ``__requires(x == v)``).  Only integer arguments
        are given values; values that do not match them are said in a note and not
        assumed (every value is then checked: sound)."""
        given = [f.partition("=")[2].split(",") for f in header.flags if f.startswith("--kernel-args=")]
        out: list[K.Stmt] = []
        for name, *vals in given:
            if name != self.display_name:
                continue
            scalars = [p for p in params if p.var is not None]
            try:
                numbers = [int(v, 0) for v in vals]
            except ValueError:
                numbers = []
            if len(numbers) != len(scalars) or any(p.type.kind != "int" for p in scalars):
                self.unit.note(f"--kernel-args for kernel '{name}' not honoured (its values do not "
                               "match its integer arguments): every value is checked", header.flags_line, 3)
                continue
            for p, v in zip(scalars, numbers, strict=True):
                assert p.var is not None
                v &= (1 << p.type.bits) - 1  # the argument's bits, as GPUVerify passes them
                if p.type.signed and v >> (p.type.bits - 1):
                    v -= 1 << p.type.bits
                cond = K.Binary("==", p.var, K.Const(v, p.type), K.BOOL)
                self.requires.append(cond)
                out.append(K.Assume(cond, kind="requires", label=self.label(), placeable=False, synthetic=True))
        return out

    def span_of(self, node: Node, *, decl: bool = False) -> K.Span | None:
        """A statement from inside a macro's body, not the whole expansion, has no extent of
        its own in the user's text: a position-only span at the macro's use (``fix`` refuses
        to put a barrier there, :mod:`autosync.algorithm.macro_sites`)."""
        span = super().span_of(node, decl=decl)
        rng = node.get("range", {})
        if span is None or span.start < 0 or not _inside_one_expansion(rng) or _whole_expansion(self.unit, rng):
            return span
        return K.Span(span.file, span.line, span.col)


#: translations of one kernel at most, besides those that put a local into memory: each
#: retry adds a fact that was missing (a pointer that is a value, or one more base of one),
#: and there are finitely many
MAX_ATTEMPTS = 32


def translate(unit: Unit, func: Node, launch: K.Launch, name: str,
              header: KernelHeader) -> tuple[K.Kernel, Translator]:
    """Translate ``func``, again while the points-to facts of its pointers grow
    (:mod:`kpl.frontend.pointers`): the last translation saw every base of every pointer.
    Returns the kernel and the translator that made it (host launches are read with it)."""
    points = PointsTo()
    attempts = 0
    while attempts < MAX_ATTEMPTS:
        translator = Translator(unit, func, launch, name)
        translator.points_to = points
        held = len(points.addressed)
        try:
            return translator.translate(header), translator
        except RetryTranslation:
            # a local put into memory is a fact of its own (one per local declaration, so
            # finitely many): it does not count against the limit
            attempts += len(points.addressed) == held
            continue
    raise translator.error(f"unsupported: the pointers of '{name}' need more than "
                           f"{MAX_ATTEMPTS} passes to bound their arrays", func)


_DEFINE_HEAD = re.compile(rb"[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)(?:\([^)]*\))?(?:[ \t]|\\\r?\n)*")
_NAME = re.compile(rb"[A-Za-z_]\w*")
_BODY_REST = re.compile(rb"(?:[ \t;]|\\\r?\n|/\*.*?\*/|//[^\n]*)*", re.S)


def _inside_one_expansion(rng: dict[str, Any]) -> bool:
    """Whether a node of range ``rng`` begins and ends inside one macro expansion (a statement
    that merely starts with a macro, ``__shared__ int s[N];``, is the user's own)."""
    begin, end = rng.get("begin") or {}, rng.get("end") or {}
    if "spellingLoc" not in begin or "spellingLoc" not in end:
        return False
    first, last = begin.get("expansionLoc") or {}, end.get("expansionLoc") or {}
    return (first.get("file"), first.get("offset")) == (last.get("file"), last.get("offset"))


def _whole_expansion(unit: Unit, rng: dict[str, Any]) -> bool:
    """Whether the node of range ``rng`` is the whole expansion of the macro used where it
    is: spelled from the first to the last token of that macro's body."""
    begin, end = rng.get("begin") or {}, rng.get("end") or {}
    first, last, use = begin.get("spellingLoc"), end.get("spellingLoc"), begin.get("expansionLoc")
    if not (first and last and use) or first.get("file") != last.get("file"):
        return False

    def data(file: str) -> bytes | None:
        text = unit.text if file == unit.clang_main else unit.files.get(os.path.realpath(file))
        return None if text is None else encode_source(text)

    body, used = data(str(first["file"])), data(str(use.get("file")))
    if body is None or used is None:
        return False
    name = _NAME.match(used, int(use["offset"]))
    lo, hi = int(first["offset"]), int(last["offset"]) + int(last.get("tokLen", 1))
    start = lo
    while start > 0 and not (body[start - 1:start] == b"\n" and body[start - 2:start - 1] != b"\\"):
        start -= 1
    head = _DEFINE_HEAD.match(body, start)
    if name is None or head is None or head.group(1) != name.group(0) or head.end() != lo:
        return False
    rest = _BODY_REST.match(body, hi)
    after = rest.end() if rest else hi
    one_line = b"\n" not in re.sub(rb"\\\r?\n", b"", body[start:hi])  # one #define's body
    return one_line and (after >= len(body) or body[after:after + 1] in (b"\n", b"\r"))


# --------------------------------------------------------------------------- the unit


def _globals(unit: Unit) -> None:
    """File-scope ``__shared__``/``__constant__``/``__device__`` variables and texture
    references as memories."""
    for decl in unit.index.by_id.values():
        if tree.kind(decl) != "VarDecl" or unit.index.parent.get(str(decl.get("id"))) is not None \
                and tree.kind(unit.index.parent[str(decl["id"])]) not in ("NamespaceDecl",):
            continue
        space = memory_space(decl)
        loc = tree.location(decl.get("loc")) or {}
        name = str(decl.get("name", ""))
        text = tree.qual_type(decl)
        if str(loc.get("file", "")).startswith(INCLUDE_DIR):
            continue
        if space is None and text.startswith("texture<") and "NormalizedFloat" not in text:
            # a texture reference: read-only memory of its element type (tex2D(tex, x, y))
            try:
                elem = unit.types.ctype(text[len("texture<"):].split(",")[0].strip())
            except UnsupportedType:
                continue
            mem = K.Memory(name, K.Space.TEXTURE, elem, (None,))
            unit.memories[name] = mem
            unit.globals.names[str(decl["id"])] = mem
            continue
        if space is None and unit.gpuverify_style and unit.language == "cuda" and not _const(text):
            # GPUVerify reads a file-scope variable with no memory space as global memory
            # (nvcc and clang refuse its use in a kernel: a host variable); said where used
            space = K.Space.GLOBAL
            unit.host_globals[name] = decl  # clang's error on its use is then not one
        if space is None:
            continue
        try:
            elem, dims = unit.types.shape(text) if "[" in text else (unit.types.ctype(text), (1,))
        except UnsupportedType:
            unit.host_globals.pop(name, None)  # a type we cannot model: clang's error stands
            continue
        mem = K.Memory(name, space, elem, dims,
                       init=constant_contents(decl, space, elem, dims, unit.language, unit.index))
        unit.memories[name] = mem
        unit.globals.names[str(decl["id"])] = mem if "[" in text else ScalarMemory(mem)


def _const(text: str) -> bool:
    """Whether a variable of type ``text`` is ``const`` itself (its value a constant the
    kernel reads as one), not a pointer to ``const``."""
    outer = text.rsplit("*", 1)[-1] if "*" in text else text.split("[", 1)[0]
    return "const" in outer.split() or ("*" not in text and text.split()[0] in ("const", "constexpr"))


def _kernels(unit: Unit) -> list[tuple[Node, str]]:
    """Every ``__global__`` function with a body, in file order, with its display name
    (``k<32>`` for an instantiation)."""
    found: list[tuple[int, Node, str]] = []
    for node in unit.index.by_id.values():
        if tree.kind(node) != "FunctionDecl" or not (tree.has_attr(node, "CUDAGlobalAttr")
                                                     or is_kernel(node)):
            continue
        if tree.body_of(node) is None:
            continue
        args = [c for c in tree.children(node) if tree.kind(c) == "TemplateArgument"]
        parent = unit.index.parent.get(str(node["id"]))
        name = str(node.get("name", ""))
        if parent is not None and parent.get("name") and tree.kind(parent) == "NamespaceDecl":
            name = unit.index.qualified_name(node)
        if str(node["id"]) in unit.index.patterns:
            continue
        if args:
            name += "<" + ", ".join(unit.index.template_arguments(node)) + ">"
        loc = tree.location(node.get("range", {}).get("begin")) or {}
        found.append((int(loc.get("offset", 0)), node, name))
    found.sort(key=lambda item: item[0])
    return [(node, name) for _, node, name in found]


def launch_bounds(func: Node, index: tree.DeclIndex) -> int | None:
    """N of ``__launch_bounds__(N, …)``, a constant expression (``kThreads`` too)."""
    for attr in tree.children(func):
        if tree.kind(attr) == "CUDALaunchBoundsAttr" and tree.children(attr):
            return ConstEval(index).value(tree.children(attr)[0])
    return None


def _dims(value: Dim | tuple[int, int, int]) -> K.Dim3 | None:
    if value is None:
        return None
    if isinstance(value, int):
        return (value, 1, 1)
    vals = [None if v is None else int(v) for v in value] + [1, 1]  # None: symbolic
    return (vals[0], vals[1], vals[2])


def _launch(header: KernelHeader, bound: int | None, block_dim: Dim, grid_dim: Dim,
            warp_sync: int | None, required: tuple[int, int, int] | None) -> K.Launch:
    """The launch the caller or the header states; every dimension neither states is symbolic
    (None: any value CUDA allows, :mod:`kpl.launch`), with at most ``__launch_bounds__``
    threads a block.  A kernel with ``reqd_work_group_size`` has that block size."""
    block = _dims(block_dim) or _dims(header.block_dim) or required or (None, None, None)
    grid = _dims(grid_dim) or _dims(header.grid_dim) or (None, None, None)
    return K.Launch(block, grid, warp_sync if warp_sync is not None else header.warp_sync,
                    max_threads=min(bound, K.MAX_THREADS_PER_BLOCK) if bound else K.MAX_THREADS_PER_BLOCK)


def _token_reader(text: str, main: str, files: dict[str, str]) -> Callable[[dict[str, Any]], str]:
    """The source token at a clang location (where it is spelled, inside a macro's body too)."""
    data: dict[str, bytes] = {main: encode_source(text)}

    def token(loc: dict[str, Any]) -> str:
        loc = loc.get("spellingLoc") or loc
        file, offset, size = str(loc.get("file", "")), loc.get("offset"), loc.get("tokLen")
        if offset is None or size is None:
            return ""
        if file not in data:
            real = os.path.realpath(file)
            data[file] = encode_source(files[real]) if real in files else b""
        return data[file][int(offset):int(offset) + int(size)].decode("utf-8", "replace")
    return token


def _header_defines(header: KernelHeader) -> dict[str, str]:
    out = dict(header.defines)
    spec = header.expected.get("defines")
    if spec:
        for item in spec.split(","):
            name, _, value = item.partition("=")
            if name:
                out[name.strip()] = value.strip() or "1"
    return out


def load_kernels(path: str, text: str | None = None, *, defines: dict[str, str] | None = None,
                 include_dirs: list[str] | None = None, block_dim: Dim = None,
                 grid_dim: Dim = None, warp_sync: int | None = None,
                 instances: list[str] | None = None, forced_includes: list[str] | None = None,
                 forced_dirs: list[str] | None = None, clang: str | None = None,
                 language: str | None = None, cl_std: str | None = None) -> list[K.Kernel]:
    """Parse ``path`` (or ``text`` as if it were ``path``) into one Kernel per
    ``__global__`` function (OpenCL C: ``__kernel``) with a body, in file order.  ``language``:
    ``cuda`` or ``opencl`` (None: by the file's extension, :func:`kpl.frontend.opencl.language_of`)."""
    language = language_of(path, language)
    if text is None:
        try:
            text = read_source(path)
        except OSError as exc:
            raise KplError(f"cannot read file: {exc.strerror}", path) from None
    header = parse_header(text, path)
    all_defines = _header_defines(header)
    all_defines.update(defines or {})
    extra = "".join(f"\nstatic void __autosync_instance_{n}() {{ (void)&{inst}; }}\n"
                    for n, inst in enumerate(instances or []))
    result = run_clang(path, text, defines=all_defines, include_dirs=include_dirs,
                       forced_includes=forced_includes, forced_dirs=forced_dirs, extra_text=extra,
                       clang=clang, language=language, cl_std=cl_std or "2.0",
                       gpuverify=header.gpuverify_style)
    tu = result.ast
    if language == "opencl":
        normalize(tu, _token_reader(text, result.main_file, result.files))
    index = tree.DeclIndex(tu)
    unit = Unit(path=path, text=text, clang_main=result.main_file, tu=tu, index=index,
                types=TypeTable(index), source=SourceText(text), position=tree.Position(text),
                bundled_dir=INCLUDE_DIR, files=result.files, language=language,
                gpuverify_style=header.gpuverify_style, options=header.options,
                gpuverify_parts=result.gpuverify_parts,
                work_dim=header.work_dim if block_dim is None else None)  # the flag's launch wins
    honoured, not_honoured = header.option_notes()
    if honoured:
        unit.note("GPUVerify's options honoured: " + "; ".join(honoured), header.flags_line, 3)
    if not_honoured:
        unit.note("GPUVerify's options not honoured: " + ", ".join(not_honoured), header.flags_line, 3)
    _globals(unit)
    main_dir = os.path.dirname(os.path.abspath(path))
    macros = scan_macros([(os.path.normpath(os.path.join(os.path.dirname(path), os.path.relpath(real, main_dir))), t)
                          for real, t in result.files.items()] + [(path, text)])
    for name, body in result.macro_values.items():  # the definition the preprocessor kept
        if name in macros and not macros[name].function_like:
            macros[name] = dataclasses.replace(macros[name], body=body)
    kernels = []
    calls = host_calls(unit)
    for func, name in _kernels(unit):
        check_errors(result, unit, func, path)
        bound = launch_bounds(func, unit.index)
        required = opencl_required_size(func, unit.index)
        launch = _launch(header, bound, block_dim, grid_dim, warp_sync, required and required[0])
        kernel, translator = translate(unit, func, launch, name, header)
        if required is not None:
            file, line, col = translator.where(required[1])
            kernel.required_size = K.RequiredSize(required[0], file or path, line or 1, col or 1)
            check_required_size(kernel.required_size, block_dim, "the command line")
            check_required_size(kernel.required_size, header.block_dim, "the header")
        kernel.macros = dict(macros)
        kernel.launch_bounds = bound
        kernel.host_launches = launches_of(translator, func, kernel, calls)
        kernel.launch = restrict_unused(kernel.launch, kernel)
        kernels.append(kernel)
    if language == "opencl" and kernels:  # the host part of the file, parsed again as C
        enqueued = opencl_launches(path, text, defines=all_defines, include_dirs=include_dirs, clang=clang)
        for kernel in kernels:
            kernel.host_launches = enqueued.get(kernel.name, [])
    for kernel in kernels:
        kernel.notes = unit.notes  # one list: a note found while translating a later kernel counts too
        kernel.gpuverify_style = unit.gpuverify_style
        kernel.options = unit.options
    if not kernels:
        first = result.errors[0] if result.errors else None
        if first is not None and first.file == result.main_file:
            raise KplError(first.message, path, first.line, first.col)
        what = "__kernel" if language == "opencl" else "__global__"
        raise KplError(f"no {what} function with a body in this file", path, 1, 1)
    return kernels


def launches_elsewhere(path: str, kernel: K.Kernel, *, defines: dict[str, str] | None = None,
                       include_dirs: list[str] | None = None, clang: str | None = None) -> list[HostLaunch]:
    """The launches of ``kernel`` in the host code of another file ``path`` (of the project's
    compilation database, with its flags): :func:`kpl.frontend.host.foreign_launches`."""
    text = read_source(path)
    result = run_clang(path, text, defines=defines, include_dirs=include_dirs, clang=clang)
    index = tree.DeclIndex(result.ast)
    unit = Unit(path=path, text=text, clang_main=result.main_file, tu=result.ast, index=index,
                types=TypeTable(index), source=SourceText(text), position=tree.Position(text),
                bundled_dir=INCLUDE_DIR, files=result.files)
    return foreign_launches(unit, kernel)


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
        if name in (k.name, base) or name.replace(" ", "") == k.name.replace(" ", ""):
            return k
    raise KplError(f"no kernel named '{name}' (available: {', '.join(kernel_names(kernels))})", path)


def load_kernel(path: str, kernel: str | None = None, **options: Any) -> K.Kernel:
    return select_kernel(load_kernels(path, **options), kernel, path)


def parse_kernel_text(text: str, path: str = "<input>.cu", kernel: str | None = None,
                      **options: Any) -> K.Kernel:
    return select_kernel(load_kernels(path, text, **options), kernel, path)
