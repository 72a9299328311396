"""What the host code says about a kernel's launch, and which dimensions a kernel reads.

The host code's launches of a kernel are read from clang's AST by :mod:`kpl.frontend.host`
into :class:`HostLaunch` records: every dimension is a number, a relation to the kernel's
scalar parameters (``gridDim.x == (n + 255) / 256``), or unknown (symbolic, see
:mod:`kpl.launch`).

A symbolic y or z dimension the kernel never reads (no ``threadIdx.y``/``blockDim.y``
anywhere) is 1 (:func:`restrict_unused`): a kernel written for a 1-D block, launched with a 2-D one, runs
each of its threads ``blockDim.y`` times on the same data -- every write would race, and no
one launches a 1-D kernel that way.  This is an assumption, listed by ``--explain``.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from kpl import ast as K

#: one dimension of a host launch: a number, a KPL expression over the kernel's scalar
#: parameters (the relation ``dim == expr``), or None (not known: symbolic)
HostDim = int | K.Expr | None


@dataclass(frozen=True)
class HostLaunch:
    """One ``k<<<grid, block, …>>>(args)`` of the host code, as far as it is known.

    ``args`` are the facts the launch's arguments give about the kernel's scalar parameters
    (``n == 1024`` when the call passes the constant 1024 for ``n``).  ``cooperative``: a
    cooperative launch (``cudaLaunchCooperativeKernel``, or ``cudaLaunchKernelEx`` in a
    function that sets ``cudaLaunchAttributeCooperative``), under which a grid barrier is
    legal (``fix`` may then insert one, issue 37)."""

    file: str
    line: int
    col: int
    grid: tuple[HostDim, HostDim, HostDim]
    block: tuple[HostDim, HostDim, HostDim]
    args: tuple[K.Expr, ...] = ()
    cooperative: bool = False

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line}"


def _builtins(root: Any) -> set[tuple[str, str]]:
    """Every ``(name, dim)`` of a :class:`kpl.ast.Builtin` reachable from ``root`` (statements,
    expressions, assumptions: a generic walk over the dataclasses, so no statement kind is
    missed)."""
    found: set[tuple[str, str]] = set()
    seen: set[int] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, K.Builtin):
            found.add((node.name, node.dim))
            continue
        if isinstance(node, (list, tuple)):
            stack.extend(node)
        elif isinstance(node, dict):
            stack.extend(node.values())
        elif dataclasses.is_dataclass(node) and not isinstance(node, (K.CType, K.Memory, K.Span, type)):
            stack.extend(getattr(node, f.name) for f in dataclasses.fields(node))
    return found


def used_dims(kernel: K.Kernel) -> tuple[tuple[bool, bool, bool], tuple[bool, bool, bool]]:
    """Which block and grid dimensions ``kernel`` reads: block dimension d when it mentions
    ``threadIdx.d`` or ``blockDim.d``, grid dimension d for ``blockIdx.d`` or ``gridDim.d``
    (a Builtin without a dimension counts for all three)."""
    names = _builtins([kernel.body, kernel.requires, kernel.launch.assumptions])
    block = [False, False, False]
    grid = [False, False, False]
    for name, dim in names:
        target = block if name in ("threadIdx", "blockDim") else grid if name in ("blockIdx", "gridDim") else None
        if target is None:
            continue
        for i, d in enumerate("xyz"):
            if dim in (d, ""):
                target[i] = True
    return (block[0], block[1], block[2]), (grid[0], grid[1], grid[2])


def restrict_unused(launch: K.Launch, kernel: K.Kernel) -> K.Launch:
    """``launch`` with each symbolic y or z dimension that ``kernel`` never reads set to 1 (see
    the module docstring).  x stays symbolic even when unread: a kernel that never reads
    ``threadIdx``/``blockIdx`` still runs with many threads and blocks (all doing the same
    work, which may race), and assuming one of each would hide exactly those races."""
    if not launch.symbolic:
        return launch
    block_used, grid_used = used_dims(kernel)

    def fix(dims: K.Dim3, used: tuple[bool, bool, bool]) -> K.Dim3:
        out = [d if d is not None or used[i] or i == 0 else 1 for i, d in enumerate(dims)]
        return (out[0], out[1], out[2])

    return dataclasses.replace(launch, block_dim=fix(launch.block_dim, block_used),
                               grid_dim=fix(launch.grid_dim, grid_used))


__all__ = ["HostDim", "HostLaunch", "used_dims", "restrict_unused"]
