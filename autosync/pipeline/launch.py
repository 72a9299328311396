"""Where a kernel's launch configuration comes from, and what the proof assumes about it.

No launch is guessed (issue 27).  Per dimension, first wins:

1. the command line (``--blockDim`` / ``--gridDim``);
2. the GPUVerify header of the file;
3. the project configuration (``[tool.autosync]`` in ``pyproject.toml`` or ``.autosync.toml``,
   found upward from the file, see :mod:`autosync.pipeline.project`), per kernel or for all kernels;
4. the host code's launches of the kernel in the same translation unit, read from clang's AST
   (:mod:`kpl.frontend.host`): every distinct launch is checked, each with its constants and its
   *relations* to the kernel's scalar parameters (``gridDim.x == (n + 255) / 256``);
   in an OpenCL C file, its ``clEnqueueNDRangeKernel`` calls with constant sizes
   (:mod:`kpl.frontend.opencl_host`);
5. otherwise the dimension is *symbolic*: the kernel is proved for every value CUDA allows
   (at most ``__launch_bounds__`` or 1,024 threads a block; a dimension the kernel never reads
   is 1, :mod:`kpl.launchfacts`).

Where each kernel's launch came from is kept in :data:`SOURCES` for the reports;
:func:`assumptions` lists everything a verdict rests on (``check --explain``).
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from kpl import ast as K
from kpl.launch import call_text
from kpl.launch import launch_text as sizes_text
from kpl.launchfacts import HostLaunch
from kpl.placement import BarrierKind
from oracle.base import ASSUMPTIONS

#: the source of a dimension nothing states: proved for all values
SYMBOLIC = "symbolic"


@dataclass(frozen=True)
class LaunchChoice:
    """The launch a kernel is checked under, and where each dimension came from."""

    block_dim: K.Dim3
    grid_dim: K.Dim3
    block_source: str
    grid_source: str
    defines: tuple[tuple[str, str], ...] = ()
    assumptions: tuple[K.Expr, ...] = ()
    host: HostLaunch | None = None

    @property
    def source(self) -> str:
        if self.block_source == self.grid_source:
            return self.block_source
        return f"blockDim: {self.block_source}; gridDim: {self.grid_source}"


#: kernel -> the launch it was lowered under (filled by :func:`autosync.pipeline.project.load`)
SOURCES: weakref.WeakKeyDictionary[K.Kernel, LaunchChoice] = weakref.WeakKeyDictionary()


def launch_json(kernel: K.Kernel) -> dict[str, object]:
    """The ``"launch"`` member of a kernel's JSON result: ``null`` for a symbolic dimension."""
    launch = kernel.launch
    choice = SOURCES.get(kernel)
    out: dict[str, object] = {"blockDim": list(launch.block_dim), "gridDim": list(launch.grid_dim),
                              "source": choice.source if choice is not None else _plain_source(launch)}
    if None in launch.block_dim:  # the bound of a symbolic block
        out["maxThreadsPerBlock"] = launch.max_threads
    if launch.assumptions:
        out["assumptions"] = [expr_text(a) for a in launch.assumptions]
    return out


def _plain_source(launch: K.Launch) -> str:
    return SYMBOLIC if launch.symbolic else "unknown"


def launch_text(kernel: K.Kernel) -> str:
    """The launch ``kernel`` was checked under, for a text report that must tell several
    launches of one kernel apart: ``launch <<<4, 32>>> at k.cu:12`` (a host launch) or
    ``launch <<<4, 32>>> from command line`` (any other source); for OpenCL C the sizes in
    its header's words, ``launch local_size=32 num_groups=4 at k.cl:40``."""
    choice = SOURCES.get(kernel)
    launch = kernel.launch
    source = choice.source if choice else _plain_source(launch)
    where = source.removeprefix("host launch ")
    return (f"launch {call_text(launch.grid_dim, launch.block_dim, kernel.language)} "
            + (where if where != source else f"from {source}"))


# --------------------------------------------------------------------------- expressions as C


_PREC = {"*": 10, "/": 10, "%": 10, "+": 9, "-": 9, "<<": 8, ">>": 8, "<": 7, ">": 7, "<=": 7, ">=": 7,
         "==": 6, "!=": 6, "&": 5, "^": 4, "|": 3, "&&": 2, "||": 1}


def expr_text(e: K.Expr, prec: int = 0) -> str:
    """A launch fact as C: ``gridDim.x == (n + 255) / 256`` (the KPL of :mod:`kpl.frontend.host`:
    constants, parameters, built-ins, arithmetic, conversions and ``?:``)."""
    if isinstance(e, K.Const):
        return str(e.value)
    if isinstance(e, K.Var):
        return e.name
    if isinstance(e, K.Builtin):
        return f"{e.name}.{e.dim}" if e.dim else e.name
    if isinstance(e, K.Cast):
        inner = expr_text(e.operand, prec)
        return inner  # integer conversions of launch arithmetic: shown as the C source has them
    if isinstance(e, K.Unary):
        return f"{e.op}{expr_text(e.operand, 11)}"
    if isinstance(e, K.Binary):
        p = _PREC.get(e.op, 0)
        text = f"{expr_text(e.left, p)} {e.op} {expr_text(e.right, p + 1)}"
        return f"({text})" if p < prec else text
    if isinstance(e, K.Cond):
        text = f"{expr_text(e.cond, 1)} ? {expr_text(e.then)} : {expr_text(e.els)}"
        return f"({text})" if prec > 0 else text
    return "?"


# --------------------------------------------------------------------------- choices


def _host_dims(dims: tuple[Any, Any, Any], name: str) -> tuple[K.Dim3, list[K.Expr]]:
    """A host launch's dimensions: numbers stay, a relation becomes a symbolic dimension with
    the assumption ``name.d == expr``, an unknown one a symbolic dimension."""
    out: list[int | None] = []
    facts: list[K.Expr] = []
    for d, value in zip("xyz", dims, strict=True):
        if isinstance(value, int):
            out.append(value)
            continue
        out.append(None)
        if value is not None:
            rhs = value if value.type == K.UINT else K.Cast(K.UINT, value)
            facts.append(K.Binary("==", K.Builtin(name, d), rhs, K.BOOL))
    return (out[0], out[1], out[2]), facts


def host_choices(host: list[HostLaunch], block: tuple[K.Dim3 | None, str], grid: tuple[K.Dim3 | None, str],
                 defines: tuple[tuple[str, str], ...]) -> list[LaunchChoice]:
    """One choice per distinct host launch (a dimension the flags, header or configuration give
    wins over the host's).  Launches with the same sizes and relations are one check; the facts
    their arguments give on the scalar parameters are those ALL of them share (``k<<<4,
    256>>>(d, 1)`` and ``k<<<4, 256>>>(d, 2)`` are checked once, for every ``n``: fewer
    assumptions, so still sound, and no check per call site)."""
    groups: dict[tuple[object, ...], tuple[LaunchChoice, list[HostLaunch]]] = {}
    for h in host:
        at = f"host launch at {h.where}"
        facts: list[K.Expr] = []
        bdims, bfacts = _host_dims(h.block, "blockDim")
        gdims, gfacts = _host_dims(h.grid, "gridDim")
        facts = (bfacts if block[0] is None else []) + (gfacts if grid[0] is None else [])
        c = LaunchChoice(block[0] or bdims, grid[0] or gdims, block[1] or at, grid[1] or at, defines,
                         tuple(facts), h)
        groups.setdefault((c.block_dim, c.grid_dim, repr(c.assumptions)), (c, []))[1].append(h)
    out = []
    for c, members in groups.values():
        shared = [a for a in members[0].args if all(repr(a) in {repr(b) for b in m.args} for m in members[1:])]
        out.append(replace(c, assumptions=c.assumptions + tuple(shared)))
    return out


# --------------------------------------------------------------------------- assumptions


def assumptions(kernel: K.Kernel) -> list[str]:
    """Every assumption a verdict on ``kernel`` rests on, one line each, for ``--explain``:
    the launch and where it came from, the launch's relations, and the semantics the oracles
    give C (the one list: an oracle that adds an assumption adds its line here)."""
    launch = kernel.launch
    choice = SOURCES.get(kernel)
    source = choice.source if choice else _plain_source(launch)
    origin = "no launch stated or found" if source == SYMBOLIC else f"from {source}"
    lines = [f"launch: {sizes_text(launch, kernel.language)} ({origin})"]
    if launch.symbolic:
        ranges = []
        if None in launch.block_dim:
            bound = f"__launch_bounds__({launch.max_threads})" if launch.max_threads < K.MAX_THREADS_PER_BLOCK \
                else str(launch.max_threads)
            ranges.append(f"1 <= blockDim.x, .y <= 1024, 1 <= blockDim.z <= 64, at most {bound} threads a block")
        if None in launch.grid_dim:
            ranges.append("1 <= gridDim.x < 2^31, 1 <= gridDim.y, .z <= 65535")
        free = [f"blockDim.{d}" for d, v in zip("xyz", launch.block_dim, strict=True) if v is None]
        free += [f"gridDim.{d}" for d, v in zip("xyz", launch.grid_dim, strict=True) if v is None]
        lines.append(f"symbolic: {', '.join(free)} take every value CUDA allows ({'; '.join(ranges)})")
        lines.append("index width: gridDim.d * blockDim.d < 2^31 (fewer than 2^31 threads in each dimension: the "
                     "global thread index and blockDim.d * gridDim.d fit in an int)")
        ones = [f"blockDim.{d}" for d, v in zip("xyz", launch.block_dim, strict=True) if v == 1
                and (choice is None or choice.block_source == SYMBOLIC)]
        ones += [f"gridDim.{d}" for d, v in zip("xyz", launch.grid_dim, strict=True) if v == 1
                 and (choice is None or choice.grid_source == SYMBOLIC)]
        if ones:
            lines.append(f"unused dimensions: {', '.join(ones)} == 1 (the kernel never reads them)")
    for a in launch.assumptions:
        lines.append(f"launch relation: {expr_text(a)}")
    for r in kernel.requires:
        lines.append(f"__requires: {expr_text(r)}")
    pointers = [p.name for p in kernel.params if p.mem is not None]
    if len(pointers) > 1:
        lines.append(f"no aliasing: the pointer parameters {', '.join(pointers)} point to distinct arrays")
    lines.extend(ASSUMPTIONS[:2])  # the oracles' semantics of C arithmetic and conversions (oracle.base)
    return lines


def add_launches(doc: dict[str, Any], results: Sequence[tuple[Any, Any, str]]) -> dict[str, Any]:
    """Name the launch each kernel was checked under in a ``check --format json`` document
    (``results`` are the (LabelLocator, Verdict, oracle) triples the document was made from)."""
    launches = [launch_json(loc.kernel) for loc, _, _ in results]
    for entry, launch in zip(doc.get("kernels", []), launches, strict=True):
        entry["launch"] = launch
    if len(launches) == 1:
        doc["launch"] = launches[0]
    return doc


__all__ = ["LaunchChoice", "SOURCES", "SYMBOLIC", "launch_json", "launch_text", "expr_text",
           "host_choices", "assumptions", "add_launches"]


# --------------------------------------------------------------------------- grid barriers


#: what ``fix`` says whenever it writes a grid barrier (issue 37)
GRID_REQUIREMENT = ("a grid barrier (this_grid().sync()) is legal only when the kernel is launched "
                    "cooperatively (cudaLaunchCooperativeKernel, or cudaLaunchKernelEx with "
                    "cudaLaunchAttributeCooperative) and every block of its grid is resident on the "
                    "GPU at once (at most the blocks cudaOccupancyMaxActiveBlocksPerMultiprocessor "
                    "allows per multiprocessor)")


def grid_permit(kernel: K.Kernel, flag: bool) -> str | None:
    """Why ``fix`` may insert grid barriers into ``kernel`` (issue 37), None when it may not: a
    CUDA kernel under ``--grid-sync`` (``flag``), launched cooperatively by every host launch
    found (:attr:`kpl.launchfacts.HostLaunch.cooperative`), or already calling a grid barrier
    (which is legal only under a cooperative launch).  OpenCL C has no grid barrier."""
    if kernel.language != "cuda":
        return None
    if flag:
        return "--grid-sync"
    host = kernel.host_launches
    if host and all(h.cooperative for h in host):
        return f"the cooperative launch at {host[0].where}"
    if any(isinstance(s, K.Barrier) and s.kind is BarrierKind.GRID for s in K.walk_stmts(kernel.body)):
        return "the kernel's own grid barrier (its launch is cooperative)"
    return None
