"""The project around a kernel file: its configuration, and loading its kernels under the
launch each one is really run with.

Configuration is found like ruff's: walking up from the file's folder, the first
``.autosync.toml`` (keys at the top level) or ``pyproject.toml`` with a ``[tool.autosync]``
table wins; the walk stops at the filesystem root or at a folder holding ``.git``.  Keys::

    [tool.autosync]
    blockDim = [16, 16]          # for every kernel of the project
    gridDim = 64
    defines = { N = 1024 }
    [tool.autosync.kernels.transpose]
    blockDim = [32, 8]           # for kernel 'transpose' only (wins over the above)

The order of the launch sources is stated in :mod:`autosync.pipeline.launch`.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from kpl.errors import KplError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

if TYPE_CHECKING:
    from autosync.pipeline.launch import LaunchChoice
    from autosync.pipeline.options import KernelOptions
    from kpl.ast import Kernel

Dim3 = tuple[int, int, int]
CONFIG_NAMES = (".autosync.toml", "pyproject.toml")


@dataclass
class ProjectConfig:
    """The ``[tool.autosync]`` table of a project (empty when there is none)."""

    path: str | None = None
    root: str | None = None
    table: dict[str, Any] = field(default_factory=dict)

    def kernel_table(self, kernel: str) -> dict[str, Any]:
        kernels = self.table.get("kernels", {})
        base = kernel.split("<", 1)[0]
        return kernels.get(kernel) or kernels.get(base) or {}

    def dims(self, kernel: str, key: str) -> Dim3 | None:
        for table in (self.kernel_table(kernel), self.table):
            if key in table:
                return _dim(table[key], key, self.path or "")
        return None

    def defines(self, kernel: str) -> dict[str, str]:
        out = {str(k): str(v) for k, v in self.table.get("defines", {}).items()}
        out.update({str(k): str(v) for k, v in self.kernel_table(kernel).get("defines", {}).items()})
        return out


def _dim(value: Any, key: str, path: str) -> Dim3:
    vals = [value] if isinstance(value, int) else list(value) if isinstance(value, list) else []
    if not 1 <= len(vals) <= 3 or not all(isinstance(v, int) and v > 0 for v in vals):
        raise KplError(f"bad {key} value {value!r} in the configuration: expected N or [X, Y, Z]", path)
    vals += [1, 1]
    return (vals[0], vals[1], vals[2])


def find_config(file: str) -> ProjectConfig:
    """The nearest configuration above ``file`` (see the module docstring)."""
    folder = os.path.dirname(os.path.abspath(file))
    while True:
        for name in CONFIG_NAMES:
            path = os.path.join(folder, name)
            if os.path.isfile(path):
                try:
                    with open(path, "rb") as fh:
                        data = tomllib.load(fh)
                except (OSError, tomllib.TOMLDecodeError) as exc:
                    raise KplError(f"cannot read configuration: {exc}", path) from None
                table = data if name == ".autosync.toml" else data.get("tool", {}).get("autosync")
                if table is not None:
                    return ProjectConfig(path, folder, table)
        parent = os.path.dirname(folder)
        if parent == folder or os.path.isdir(os.path.join(folder, ".git")):
            return ProjectConfig(root=folder)
        folder = parent


def _read(path: str) -> str:
    """The file as the front end sees it: decoded losslessly (non-UTF-8 bytes kept), with LF
    line endings (as ``fix`` parses it; line and column numbers are unchanged)."""
    from autosync.pipeline.files import read_source, to_lf

    return to_lf(read_source(path))


def load(opts: KernelOptions, text: str | None = None) -> list[Kernel]:
    """The kernels of ``opts.file``, each lowered under its own launch (one Kernel per distinct
    host launch), with notes for the user appended to ``opts.notes``."""
    from autosync.pipeline.launch import (  # not at the top: a cache hit needs only find_config
        SOURCES,
        host_launches,
    )
    from kpl import frontend
    from kpl.header import parse_header

    if text is None:
        text = _read(opts.file)
    header = parse_header(text, opts.file)
    config = find_config(opts.file)
    read_compile_command(opts)
    base_kw = opts.frontend_kwargs()
    build = opts.build_defines
    # a first lowering names the kernels (and their __launch_bounds__)
    kernels = frontend.load_kernels(opts.file, text, **{**base_kw, "defines": {**build, **config.defines(""),
                                                                               **opts.defines} or None})
    from autosync.pipeline.options import check_unique_names

    check_unique_names(kernels, text, opts.file)
    if opts.kernel is not None:
        kernels = [frontend.select_kernel(kernels, opts.kernel, opts.file)]
    # launch constants: the macros the preprocessor ended with (headers included), under the flags
    macros = {name: d.body for name, d in kernels[0].macros.items() if d.body is not None} \
        if kernels else {}
    launches, unknown = host_launches(text, {**macros, **build, **header.defines, **config.defines(""),
                                             **opts.defines})
    out: list[Kernel] = []
    for k in kernels:
        base = k.name.split("<", 1)[0]
        for choice in _choices(opts, header, config, k, launches.get(base, []), unknown.get(base)):
            kw = {**base_kw, "block_dim": choice.block_dim, "grid_dim": choice.grid_dim,
                  "defines": {**build, **dict(choice.defines), **opts.defines} or None}
            if (choice.block_dim, choice.grid_dim) == (k.launch.block_dim, k.launch.grid_dim) and \
                    dict(choice.defines) == config.defines(""):
                lowered = k
            else:
                lowered = frontend.select_kernel(frontend.load_kernels(opts.file, text, **kw), k.name, opts.file)
            SOURCES[lowered] = choice
            out.append(lowered)
    return out


def read_compile_command(opts: KernelOptions) -> None:
    """Take the file's ``compile_commands.json`` entry into ``opts`` once (:mod:`autosync.pipeline.compdb`):
    its ``-D`` as ``build_defines`` (under the command line and the configuration), its ``-I``
    after the command line's, its ``-include`` after ``--include``."""
    from autosync.pipeline import compdb

    if opts.build_read:
        return
    opts.build_read = True
    flags = compdb.flags_for(opts.file, opts.build_dir)
    if flags is None:
        return
    opts.build_defines = dict(flags.defines)
    opts.include_dirs = opts.include_dirs + [d for d in flags.include_dirs if d not in opts.include_dirs]
    opts.forced_includes = opts.forced_includes + [p for p in flags.pre_includes if p not in opts.forced_includes]
    if flags.pre_includes and flags.directory:
        opts.forced_dirs = [flags.directory]


def _choices(opts: KernelOptions, header: Any, config: ProjectConfig, kernel: Kernel, host: list[Any],
             unknown_at: tuple[int, int] | None) -> list[LaunchChoice]:
    """Every launch ``kernel`` is checked under (the order of :mod:`autosync.pipeline.launch`)."""
    from autosync.pipeline.launch import DEFAULT_BLOCK, DEFAULT_GRID, LaunchChoice, distinct
    name = kernel.name
    defines = tuple(sorted(config.defines(name).items()))
    block: tuple[Dim3 | None, str] = (None, "")
    grid: tuple[Dim3 | None, str] = (None, "")
    where = os.path.relpath(config.path) if config.path else ""
    for value, src in ((opts.block_dim, "command line"), (header.block_dim, "header"),
                       (config.dims(name, "blockDim"), f"configuration {where}")):
        if value is not None:
            block = (value, src)
            break
    for value, src in ((opts.grid_dim, "command line"), (header.grid_dim, "header"),
                       (config.dims(name, "gridDim"), f"configuration {where}")):
        if value is not None:
            grid = (value, src)
            break
    choices: list[LaunchChoice] = []
    if (block[0] is None or grid[0] is None) and host:
        for h in distinct(host):
            at = f"host launch at {opts.file}:{h.line}"
            choices.append(LaunchChoice(block[0] or h.block_dim, grid[0] or h.grid_dim,
                                        block[1] or at, grid[1] or at, defines))
        uniq = {(c.block_dim, c.grid_dim): c for c in choices}
        return list(uniq.values())
    missing = []
    if block[0] is None:
        bounds = kernel.launch_bounds
        if bounds is not None:
            block = ((bounds, 1, 1), "__launch_bounds__")
        else:
            block = (DEFAULT_BLOCK, "default")
            missing.append("blockDim")
    if grid[0] is None:
        grid = (DEFAULT_GRID, "default")
        missing.append("gridDim")
    if missing:
        line, col = unknown_at or _kernel_pos(kernel)
        what = "launch configuration" if len(missing) == 2 else missing[0]
        why = f"no constant {what}" if unknown_at else f"no {what}"
        opts.notes.append(
            f"{opts.file}:{line}:{col}: note: {why} found for kernel '{name}'; assuming "
            f"blockDim={_fmt(block[0])} gridDim={_fmt(grid[0])}; set it with --blockDim/--gridDim, "
            "a //--blockDim header or [tool.autosync]")
    assert block[0] is not None and grid[0] is not None
    return [LaunchChoice(block[0], grid[0], block[1], grid[1], defines)]


def _fmt(dim: Dim3 | None) -> str:
    if dim is None:
        return "?"
    x, y, z = dim
    return str(x) if (y, z) == (1, 1) else f"[{x},{y}]" if z == 1 else f"[{x},{y},{z}]"


def _head(kernel: Kernel) -> str:
    import re

    base = re.escape(kernel.name.split("<", 1)[0])
    m = re.search(r"__global__[^;{]*?\b" + base + r"\s*\(", kernel.source_text)
    return m.group(0) if m else ""


def _kernel_pos(kernel: Kernel) -> tuple[int, int]:
    text = kernel.source_text
    head = _head(kernel)
    pos = text.find(head) if head else -1
    if pos < 0:
        return 1, 1
    name_pos = pos + head.rfind(kernel.name.split("<", 1)[0])
    from kpl.lineindex import LineIndex

    return LineIndex(text).line_col(name_pos)


__all__ = ["ProjectConfig", "find_config", "load", "read_compile_command", "CONFIG_NAMES"]
