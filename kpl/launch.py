"""The launch configuration a kernel is checked under: numbers, or symbolic dimensions.

No launch is guessed (issue 27).  A dimension of :class:`Launch` is a number, or None:
*symbolic*, any value CUDA allows -- the verifier proves the kernel for all of them at once
(:mod:`oracle.sdv`), an executing oracle runs :func:`representative` launches and says so.
Where the sizes come from (flags, header, configuration, the host code) is
:mod:`autosync.pipeline.launch`; what the host code says, :mod:`kpl.launchfacts`.  This module
imports nothing of :mod:`kpl` (:mod:`kpl.ast` re-exports :class:`Launch`).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from dataclasses import field as dc_field
from typing import Any

#: one launch dimension: a number, or None for "any value CUDA allows" (symbolic)
LaunchDim = int | None
Dim3 = tuple[LaunchDim, LaunchDim, LaunchDim]
#: CUDA's limits on a launch (compute capability 2.0 and later): a symbolic dimension ranges
#: over them (1 <= blockDim.d <= MAX_BLOCK_DIM[d], at most MAX_THREADS_PER_BLOCK threads)
MAX_THREADS_PER_BLOCK = 1024
MAX_BLOCK_DIM = (1024, 1024, 64)
MAX_GRID_DIM = (2**31 - 1, 65535, 65535)


@dataclass(frozen=True)
class Launch:
    """The launch configuration a kernel is checked under.

    Each dimension of ``block_dim``/``grid_dim`` is a number, or None: *symbolic*, any value
    CUDA allows (the verifier proves the kernel for all of them at once; a dimension the kernel
    never reads is 1, see :func:`used_dims`).  ``max_threads`` bounds the threads of a block
    (``__launch_bounds__(N)``, else CUDA's 1,024).  ``assumptions`` are boolean facts of this
    launch over ``blockDim``/``gridDim`` and the scalar parameters, taken from the host code
    that launches the kernel (``gridDim.x == (n + 255) / 256`` for ``k<<<(n + 255) / 256,
    256>>>(a, n)``).  ``warp_sync`` is the warp size under ``--warp-sync=N``."""

    block_dim: Dim3 = (256, 1, 1)
    grid_dim: Dim3 = (1, 1, 1)
    warp_sync: int | None = None
    max_threads: int = dc_field(default=MAX_THREADS_PER_BLOCK, repr=False)
    assumptions: tuple[Any, ...] = dc_field(default=(), repr=False)  # kpl.ast expressions

    def __repr__(self) -> str:
        """The dataclass repr, with ``max_threads`` (for a symbolic block) and ``assumptions``
        only when they say something (the repr keys caches and the KPL snapshot: a launch that
        has neither reads as it always did)."""
        bounded = self.max_threads != MAX_THREADS_PER_BLOCK and None in self.block_dim  # else moot
        extra = (f", max_threads={self.max_threads}" if bounded else "") + \
            (f", assumptions={self.assumptions!r}" if self.assumptions else "")
        return (f"Launch(block_dim={self.block_dim!r}, grid_dim={self.grid_dim!r}, "
                f"warp_sync={self.warp_sync!r}{extra})")

    @property
    def symbolic(self) -> bool:
        """Whether some dimension is left to the verifier (no single concrete launch)."""
        return None in self.block_dim or None in self.grid_dim

    @property
    def threads_per_block(self) -> int:
        """The threads of a block; for a symbolic block the most it may have."""
        x, y, z = self.block_dim
        if None in self.block_dim:
            most = 1
            for d, m in zip(self.block_dim, MAX_BLOCK_DIM, strict=True):
                most *= m if d is None else d
            return min(most, self.max_threads)
        assert x is not None and y is not None and z is not None
        return x * y * z

    @property
    def blocks(self) -> int:
        """The blocks of the grid; for a symbolic grid the most it may have."""
        out = 1
        for d, m in zip(self.grid_dim, MAX_GRID_DIM, strict=True):
            out *= m if d is None else d
        return out

    def concrete_block(self) -> tuple[int, int, int]:
        """``block_dim`` of a launch that has no symbolic block dimension (a caller that needs
        numbers checks :attr:`symbolic` first)."""
        x, y, z = self.block_dim
        assert x is not None and y is not None and z is not None, "symbolic blockDim"
        return (x, y, z)

    def concrete_grid(self) -> tuple[int, int, int]:
        x, y, z = self.grid_dim
        assert x is not None and y is not None and z is not None, "symbolic gridDim"
        return (x, y, z)



#: the concrete shapes an executing oracle runs for a symbolic launch, by the number of symbolic
#: block dimensions: a warp multiple and an odd size (a bug of ``blockDim`` not a power of two)
_BLOCK_SHAPES: dict[int, list[tuple[int, ...]]] = {1: [(64,), (33,)], 2: [(16, 8), (5, 3)], 3: [(8, 4, 2), (3, 3, 2)]}
_GRID_SHAPES: dict[int, list[tuple[int, ...]]] = {1: [(2,), (3,)], 2: [(2, 2), (3, 2)], 3: [(2, 2, 2), (3, 2, 2)]}


def representative(launch: Launch) -> list[Launch]:
    """Concrete launches standing for a symbolic one, for an oracle that executes the kernel
    (:mod:`oracle.dynamic`, :mod:`oracle.named`): each symbolic dimension takes the sizes of
    :data:`_BLOCK_SHAPES`/:data:`_GRID_SHAPES` (within ``max_threads``); a concrete launch is
    its own representative.  Such an oracle proves nothing for the other sizes, and says which
    ones it ran."""
    if not launch.symbolic:
        return [launch]
    out: list[Launch] = []
    free_b = [i for i, d in enumerate(launch.block_dim) if d is None]
    free_g = [i for i, d in enumerate(launch.grid_dim) if d is None]
    for n in range(2):
        block = list(launch.block_dim)
        grid = list(launch.grid_dim)
        if free_b:
            for i, v in zip(free_b, _BLOCK_SHAPES[len(free_b)][n], strict=True):
                block[i] = v
            while _product(block) > launch.max_threads and block[free_b[0]] > 1:  # type: ignore[operator]
                block[free_b[0]] = max(1, block[free_b[0]] // 2)  # type: ignore[operator]
        if free_g:
            for i, v in zip(free_g, _GRID_SHAPES[len(free_g)][n], strict=True):
                grid[i] = v
        fixed = dataclasses.replace(launch, block_dim=(block[0], block[1], block[2]),
                                    grid_dim=(grid[0], grid[1], grid[2]))
        if fixed not in out:
            out.append(fixed)
    return out


def _product(dims: list[int | None]) -> int:
    out = 1
    for d in dims:
        out *= d or 1
    return out


def dim_text(dims: Dim3, name: str) -> str:
    """``blockDim=[16,16,1]``, ``blockDim=[*,1,1]`` (``*``: symbolic), ``blockDim=256``."""
    x, y, z = ("*" if d is None else str(d) for d in dims)
    if (y, z) == ("1", "1"):
        return f"{name}={x}"
    return f"{name}=[{x},{y},{z}]"


def dim3_text(dims: Dim3) -> str:
    """A launch argument as CUDA code writes it: ``4``, ``dim3(16, 8)``, ``dim3(8, 4, 2)``;
    ``*`` for a symbolic dimension (the one spelling of ``<<<grid, block>>>`` sizes)."""
    x, y, z = ("*" if d is None else str(d) for d in dims)
    return x if (y, z) == ("1", "1") else f"dim3({x}, {y})" if z == "1" else f"dim3({x}, {y}, {z})"


#: the names of the block and grid sizes in each language: CUDA's built-ins, and the words
#: of GPUVerify's OpenCL header (``//--local_size=64 --num_groups=128``, :mod:`kpl.header`)
SIZE_NAMES = {"cuda": ("blockDim", "gridDim"), "opencl": ("local_size", "num_groups")}


def call_text(grid: Dim3, block: Dim3, language: str) -> str:
    """A launch as a person replays it in the kernel's language (the one spelling, for the
    witnesses of :mod:`oracle.base` and the reports of :mod:`autosync.pipeline.launch`):
    CUDA's ``<<<64, dim3(16, 16)>>>``; for OpenCL C, which has no launch syntax in the kernel
    language, the sizes as its header states them: ``local_size=[16,16,1] num_groups=[4,4,1]``
    (the host's ``clEnqueueNDRangeKernel`` takes ``local_size`` and their product)."""
    if language == "opencl":
        names = SIZE_NAMES[language]
        return f"{dim_text(block, names[0])} {dim_text(grid, names[1])}"
    return f"<<<{dim3_text(grid)}, {dim3_text(block)}>>>"


def launch_text(launch: Launch, language: str) -> str:
    """The sizes in one line, in the kernel's language: ``blockDim=[*,*,1] gridDim=[*,*,1]``
    (``*`` is any value the language allows), or OpenCL's ``local_size=64 num_groups=4``."""
    names = SIZE_NAMES[language]
    return dim_text(launch.block_dim, names[0]) + " " + dim_text(launch.grid_dim, names[1])


__all__ = ["LaunchDim", "Dim3", "Launch", "MAX_THREADS_PER_BLOCK", "MAX_BLOCK_DIM", "MAX_GRID_DIM",
           "representative", "SIZE_NAMES", "call_text", "dim_text", "dim3_text", "launch_text"]
