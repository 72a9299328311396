"""The options of a run -- how a file becomes kernels -- and the checks of what they ask for.

Every command and the language server build a :class:`KernelOptions` from their flags
(``-D``, ``-I``, ``--blockDim``, ``--kernel``, ``-p``, ...); the project configuration
(:mod:`autosync.pipeline.project`) and the loader (:mod:`autosync.pipeline.core`) read it.  It
lives below both, with the checks on what was loaded (a launch CUDA would refuse, a kernel
name defined twice), so that neither has to import the other for it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from autosync.pipeline.errors import BadInput
from kpl.ast import MAX_BLOCK_DIM, MAX_GRID_DIM, MAX_THREADS_PER_BLOCK  # CUDA's limits on a launch

if TYPE_CHECKING:
    from kpl.ast import Kernel


def parse_dim(value: str | None, flag: str, file: str | None) -> tuple[int, int, int] | None:
    """``256`` / ``[16,8]`` / ``16,8`` / ``16x8`` -> (x, y, z) with missing dims 1."""
    if value is None:
        return None
    text = value.strip()
    inner = text[1:-1] if text.startswith("[") and text.endswith("]") else text
    parts = [p.strip() for p in inner.replace("x", ",").split(",")]
    try:
        dims = [int(p, 0) for p in parts]
    except ValueError:
        dims = []
    if not 1 <= len(dims) <= 3 or any(d <= 0 for d in dims):
        raise BadInput(f"bad {flag} value '{value}': expected N, [X,Y,Z] or X,Y[,Z] with positive integers", file)
    while len(dims) < 3:
        dims.append(1)
    return (dims[0], dims[1], dims[2])


def parse_defines(items: list[str] | None, file: str | None) -> dict[str, str]:
    out: dict[str, str] = {}
    for item in items or []:
        name, eq, value = item.partition("=")
        if not name or not (name[0].isalpha() or name[0] == "_") or not all(c.isalnum() or c == "_" for c in name):
            raise BadInput(f"bad -D value '{item}': expected NAME or NAME=VALUE", file)
        out[name] = value if eq else "1"
    return out


@dataclass
class KernelOptions:
    """How to turn a file into kernels: the options shared by every command."""

    file: str
    kernel: str | None = None
    defines: dict[str, str] = field(default_factory=dict)
    include_dirs: list[str] = field(default_factory=list)
    block_dim: tuple[int, int, int] | None = None
    grid_dim: tuple[int, int, int] | None = None
    warp_sync: int | None = None
    #: two writes of the same value are no race (GPUVerify's default); False: ``--no-benign``
    benign: bool = True
    #: notes for the user found while loading (e.g. the launch assumed), printed by the front end
    notes: list[str] = field(default_factory=list)
    #: ``-p``: the folder of ``compile_commands.json`` (None: searched upward, :mod:`autosync.pipeline.compdb`)
    build_dir: str | None = None
    #: the ``-D`` flags of the file's compile command (filled by :func:`autosync.pipeline.project.load`;
    #: ``defines`` and the project configuration win over them)
    build_defines: dict[str, str] = field(default_factory=dict)
    #: the compile command was read (its ``-I`` folders are appended to ``include_dirs``)
    build_read: bool = False
    #: files read before the kernel file, as ``-include FILE`` (``--include``, then the compile
    #: command's), and the folders they may lie in besides the sandbox's (the command's directory)
    forced_includes: list[str] = field(default_factory=list)
    forced_dirs: list[str] = field(default_factory=list)
    #: ``--clang``: the clang binary to read CUDA with (None: ``$AUTOSYNC_CLANG`` or the pinned one)
    clang: str | None = None
    #: ``--language``: ``cuda`` or ``opencl`` (None: by the file's extension, ``.cl`` is OpenCL C)
    language: str | None = None
    #: ``--cl-std``: the OpenCL C version (None: 2.0)
    cl_std: str | None = None

    @classmethod
    def build(cls, file: str, kernel: str | None = None, defines: list[str] | None = None,
              include_dirs: list[str] | None = None, block_dim: str | None = None,
              grid_dim: str | None = None, warp_sync: int | None = None,
              build_dir: str | None = None, forced_includes: list[str] | None = None, *,
              benign: bool = True, clang: str | None = None, language: str | None = None,
              cl_std: str | None = None) -> KernelOptions:
        from kpl.frontend.clang import OPENCL_VERSIONS
        from kpl.frontend.opencl import LANGUAGES

        if language is not None and language not in LANGUAGES:
            raise BadInput(f"bad --language value '{language}': expected {' or '.join(LANGUAGES)}", file)
        if cl_std is not None and cl_std.upper().removeprefix("CL") not in OPENCL_VERSIONS:
            raise BadInput(f"bad --cl-std value '{cl_std}': expected {', '.join(OPENCL_VERSIONS)}", file)
        if warp_sync is not None and warp_sync <= 0:
            raise BadInput(f"bad --warp-sync value '{warp_sync}': expected a positive warp size", file)
        return cls(file, kernel, parse_defines(defines, file), list(include_dirs or []),
                   parse_dim(block_dim, "--blockDim", file), parse_dim(grid_dim, "--gridDim", file), warp_sync,
                   build_dir=build_dir, forced_includes=list(forced_includes or []), benign=benign,
                   clang=clang, language=language,
                   cl_std=cl_std.upper().removeprefix("CL") if cl_std else None)

    def frontend_kwargs(self) -> dict[str, Any]:
        inst = [self.kernel] if self.kernel and "<" in self.kernel else None  # --kernel 'k<32>' instantiates
        return {"defines": self.defines or None, "include_dirs": self.include_dirs or None, "instances": inst,
                "block_dim": self.block_dim, "grid_dim": self.grid_dim, "warp_sync": self.warp_sync,
                "forced_includes": self.forced_includes or None, "forced_dirs": self.forced_dirs or None,
                "clang": self.clang, "language": self.language, "cl_std": self.cl_std}




def _where(source: str, pattern: str, nth: int = 0) -> tuple[int, int] | None:
    """1-based (line, col) of the ``nth`` match of ``pattern`` (its group 1) in ``source``."""
    import re

    matches = list(re.finditer(pattern, source))
    if len(matches) <= nth:
        return None
    start = matches[nth].start(1)
    from kpl.lineindex import LineIndex

    return LineIndex(source).line_col(start)


def check_unique_names(kernels: list[Kernel], source: str, file: str) -> None:
    """Two ``__global__`` functions of one name (an overload, a copy-paste) would make every
    report ambiguous: refused, at the second definition."""
    import re

    from kpl.errors import KplError

    seen: set[str] = set()
    for k in kernels:
        if k.name in seen:
            at = _where(source, rf"__global__[^;{{}}]*?\b({re.escape(k.name)})\s*\(", 1)
            line, col = at if at else (k.body.span.line if k.body.span else None, 1)
            raise KplError(f"kernel '{k.name}' defined twice", file, line, col)
        seen.add(k.name)


def check_launch(kernel: Kernel, opts: KernelOptions, source: str) -> None:
    """A launch past CUDA's limits (over 1,024 threads a block, a dimension over its limit) is
    analysed as written (issue 34): the user asked about that launch, and GPUVerify analyses
    it.  In a file written for GPUVerify (its flags line, :attr:`Kernel.gpuverify_style`) that
    is its convention, said once as a note; elsewhere (no flags line, or a ``--blockDim`` on
    the command line) a warning, at the flag or the header line that asked for it.  A
    dimension that does not fit in ``dim3``'s 32 bits is no launch at all: bad input."""
    from kpl.errors import KplError

    # a symbolic dimension (None) ranges over legal values only: the stated ones are checked
    block = tuple(d or 1 for d in kernel.launch.block_dim)
    grid = tuple(d or 1 for d in kernel.launch.grid_dim)
    opencl = kernel.language == "opencl"
    bname, gname = ("local_size", "num_groups") if opencl else ("blockDim", "gridDim")
    items = "work-items" if opencl else "threads"
    problem = None
    flag = bname
    threads = block[0] * block[1] * block[2]
    if any(d >= 2**32 for d in (*block, *grid)):
        flag = bname if any(d >= 2**32 for d in block) else gname
        problem = f"{flag} {list(block if flag == bname else grid)} does not fit in 32 bits"
    elif threads > MAX_THREADS_PER_BLOCK:
        problem = (f"{bname} {list(block)} has {threads} {items}, past "
                   + (f"the {MAX_THREADS_PER_BLOCK} work-items a work-group commonly allows" if opencl
                      else f"CUDA's limit of {MAX_THREADS_PER_BLOCK} threads a block"))
    elif any(d > m for d, m in zip(block, MAX_BLOCK_DIM, strict=True)):
        problem = f"{bname} {list(block)} exceeds " + \
            ("common work-group limits" if opencl else "CUDA's limits") + " (x, y <= 1024, z <= 64)"
    elif any(d > m for d, m in zip(grid, MAX_GRID_DIM, strict=True)):
        flag = gname
        problem = f"{gname} {list(grid)} exceeds " + \
            ("common limits" if opencl else "CUDA's limits") + " (x < 2^31, y, z <= 65535)"
    if problem is None:
        return
    given = opts.block_dim if flag == bname else opts.grid_dim
    at = None if given is not None else _where(source, rf"({'|'.join(_header_flags(flag))})\s*=")
    if "32 bits" in problem:
        if given is not None:
            raise BadInput(f"bad --{'blockDim' if flag == bname else 'gridDim'} value: {problem}", opts.file)
        raise KplError(problem, opts.file, *(at if at else (None, None)))
    where = opts.file + (f":{at[0]}:{at[1]}" if at else "")
    if kernel.gpuverify_style and given is None:
        text = f"{where}: note: {problem}: analysed as written, as GPUVerify does"
    else:
        text = f"{where}: warning: {problem}: analysed as written"
    if text not in opts.notes:
        opts.notes.append(text)


def _header_flags(flag: str) -> list[str]:
    """The header's spellings of a size (``--local_size`` is also stated by ``--global_size``)."""
    return {"local_size": ["local_size"], "num_groups": ["num_groups", "global_size"],
            "blockDim": ["blockDim", "blockdim"], "gridDim": ["gridDim", "griddim"]}[flag]
