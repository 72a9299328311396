"""CUDA → KPL: walk the pycparser AST of a (lowered) CUDA file into KPL kernels.

The text-level work -- preprocessing, CUDA dialect and templates -- is done by
:mod:`kpl.cuda` (:func:`kpl.cuda.parse_cuda`).  This module takes its ``FileAST`` and
produces one :class:`kpl.ast.Kernel` per ``__global__`` function (the lowering itself is the
table of constructs in :mod:`kpl.fe`):

* every C statement becomes one placeable leaf (or compound statement).  Side effects that
  C hides inside expressions (``A[i++]``, a call to a ``__device__`` function) are made
  explicit as synthetic leaves *before* the statement, marked ``placeable=False`` so a barrier
  never lands between two halves of one C statement (CONTRIBUTING.md, "Labels");
* conditions that read memory are hoisted into synthetic leaves ([AutoSync] Fig. 9,
  ``p := e``);
* ``__device__`` functions are inlined at the call site (recursion is an error);
* array indices are flattened, pointer variables resolved to (array, offset) pairs;
* every statement gets a :class:`Span` in the ORIGINAL text (via :class:`SourceText`) so
  the renderer can edit the user's file byte-exactly.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pycparser import c_ast

from kpl import ast as K
from kpl.errors import KplError
from kpl.fe.base import PointerBinding, Scope
from kpl.fe.stmts import StmtsLowering
from kpl.header import KernelHeader
from kpl.source import FunctionInfo

#: A launch dimension as the API takes it: ``256``, ``(16, 16)`` or ``(16, 16, 1)``.
Dim = int | Sequence[int] | None


class Lowerer(StmtsLowering):
    """Lowers one ``__global__`` function (and what it calls) to a :class:`K.Kernel`."""

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
        body.stmts.extend(self.ensures_checks())  # the kernel's own __ensures, at its end
        self.check_static_shared(body)
        header = self.parsed.header
        kernel = K.Kernel(
            name=self.info.display_name, params=params, body=body, launch=self.launch,
            source_path=self.path, source_text=self.parsed.text,
            memories=dict(self.memories), requires=list(self.requires),
            expected=dict(header.expected), uses_named_barriers=self.uses_named,
            macros=dict(self.parsed.macros),
        )
        if header.verdict:
            kernel.expected.setdefault("verdict", header.verdict)
        kernel.next_label = self.label_counter
        return kernel


# --------------------------------------------------------------------------- API


def _launch(header: KernelHeader, info: FunctionInfo, block_dim: Dim, grid_dim: Dim,
            warp_sync: int | None) -> K.Launch:
    def dims(value: Dim | tuple[int, int, int]) -> tuple[int, int, int] | None:
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


def _header_defines(header: KernelHeader) -> dict[str, str]:
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
                 include_dirs: list[str] | None = None, block_dim: Dim = None,
                 grid_dim: Dim = None, warp_sync: int | None = None,
                 instances: list[str] | None = None, forced_includes: list[str] | None = None,
                 forced_dirs: list[str] | None = None) -> list[K.Kernel]:
    """Parse ``path`` (or ``text`` as if it were ``path``) into one Kernel per
    ``__global__`` function with a body, in file order."""
    from kpl.cuda import parse_cuda
    from kpl.header import parse_header
    from kpl.textio import read_source

    if text is None:
        try:
            text = read_source(path)  # lossless: Latin-1 bytes, BOM, CRLF all kept
        except OSError as exc:
            raise KplError(f"cannot read file: {exc.strerror}", path) from None
    header = parse_header(text, path)
    all_defines = _header_defines(header)
    all_defines.update(defines or {})
    parsed = parse_cuda(path, text, defines=all_defines, include_dirs=include_dirs, instances=instances,
                        forced_includes=forced_includes, forced_dirs=forced_dirs)
    kernels = []
    for ext in parsed.ast.ext:
        if not isinstance(ext, c_ast.FuncDef):
            continue
        info = parsed.functions.get(ext.decl.name)
        if info is None or info.kind != "global":
            continue
        launch = _launch(parsed.header, info, block_dim, grid_dim, warp_sync)
        kernel = Lowerer(parsed, ext, info, launch).lower()
        kernels.append(kernel)
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
        if name in (k.name, base) or name.replace(" ", "") == k.name.replace(" ", ""):
            return k
    raise KplError(f"no kernel named '{name}' (available: {', '.join(kernel_names(kernels))})", path)


def load_kernel(path: str, kernel: str | None = None, **options: Any) -> K.Kernel:
    return select_kernel(load_kernels(path, **options), kernel, path)


def parse_kernel_text(text: str, path: str = "<input>.cu", kernel: str | None = None,
                      **options: Any) -> K.Kernel:
    return select_kernel(load_kernels(path, text, **options), kernel, path)

