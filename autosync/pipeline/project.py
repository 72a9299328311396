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

import dataclasses
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
    """The kernels of ``opts.file``, each under its own launch (one Kernel per distinct host
    launch), with notes for the user appended to ``opts.notes``."""
    from autosync.pipeline.launch import SOURCES  # not at the top: a cache hit needs only find_config
    from kpl import frontend
    from kpl.header import parse_header
    from kpl.launchfacts import restrict_unused

    if text is None:
        text = _read(opts.file)
    header = parse_header(text, opts.file)
    config = find_config(opts.file)
    read_compile_command(opts)
    base_kw = opts.frontend_kwargs()
    build = opts.build_defines
    # the front end leaves every dimension the flags and the header do not give symbolic, and
    # reads the host code's launches; a launch chosen here only fills those dimensions in
    kernels = frontend.load_kernels(opts.file, text, **{**base_kw, "defines": {**build, **config.defines(""),
                                                                               **opts.defines} or None})
    from autosync.pipeline.options import check_unique_names

    check_unique_names(kernels, text, opts.file)
    if opts.kernel is not None:
        kernels = [frontend.select_kernel(kernels, opts.kernel, opts.file)]
    for note in (n for k in kernels for n in k.notes):
        if note not in opts.notes:
            opts.notes.append(note)
    out: list[Kernel] = []
    for k in kernels:
        choices = _choices(opts, header, config, k)
        if dict(choices[0].defines) != config.defines(""):  # the kernel's own defines: lower again
            kw = {**base_kw, "defines": {**build, **dict(choices[0].defines), **opts.defines} or None}
            k = frontend.select_kernel(frontend.load_kernels(opts.file, text, **kw), k.name, opts.file)
        for choice in choices:
            launch = restrict_unused(dataclasses.replace(k.launch, block_dim=choice.block_dim,
                                                         grid_dim=choice.grid_dim,
                                                         assumptions=choice.assumptions), k)
            lowered = k if launch == k.launch else dataclasses.replace(k, launch=launch)
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


def _choices(opts: KernelOptions, header: Any, config: ProjectConfig, kernel: Kernel) -> list[LaunchChoice]:
    """Every launch ``kernel`` is checked under (the order of :mod:`autosync.pipeline.launch`)."""
    from autosync.pipeline.launch import SYMBOLIC, LaunchChoice, host_choices
    from kpl.frontend.opencl import check_required_size
    from kpl.launch import SIZE_NAMES, dim_text
    from kpl.launchfacts import restrict_unused
    name = kernel.name
    required = kernel.required_size  # OpenCL's reqd_work_group_size: the block, after the header's
    defines = tuple(sorted(config.defines(name).items()))
    block: tuple[Dim3 | None, str] = (None, "")
    grid: tuple[Dim3 | None, str] = (None, "")
    where = os.path.relpath(config.path) if config.path else ""
    if required is not None:
        check_required_size(required, config.dims(name, "blockDim"), f"the configuration {where}")
    for value, src in ((opts.block_dim, "command line"), (header.block_dim, "header"),
                       (required.dims if required else None, f"reqd_work_group_size at {required.file}:"
                        f"{required.line}" if required else ""),
                       (config.dims(name, "blockDim"), f"configuration {where}")):
        if value is not None:
            block = (value, src)
            break
    for value, src in ((opts.grid_dim, "command line"), (header.grid_dim, "header"),
                       (config.dims(name, "gridDim"), f"configuration {where}")):
        if value is not None:
            grid = (value, src)
            break
    host = kernel.host_launches
    if (block[0] is None or grid[0] is None) and not host:
        host = _launches_elsewhere(opts, kernel)
    if required is not None:
        for h in host:
            check_required_size(required, h.block, f"the host launch at {h.where}")
    if (block[0] is None or grid[0] is None) and host:
        return host_choices(host, block, grid, defines)
    free = (None, None, None)
    choice = LaunchChoice(block[0] or free, grid[0] or free, block[1] or SYMBOLIC, grid[1] or SYMBOLIC, defines)
    missing = [n for n, (v, _) in (("blockDim", block), ("gridDim", grid)) if v is None]
    if missing:
        line, col = _kernel_pos(kernel)
        launch = restrict_unused(dataclasses.replace(kernel.launch, block_dim=choice.block_dim,
                                                     grid_dim=choice.grid_dim), kernel)
        words = SIZE_NAMES[kernel.language]  # the header's words for the sizes (OpenCL: local_size)
        shown = " ".join(dim_text(d, w) for d, n, w in ((launch.block_dim, "blockDim", words[0]),
                                                         (launch.grid_dim, "gridDim", words[1])) if n in missing)
        opts.notes.append(
            f"{opts.file}:{line}:{col}: note: no launch of kernel '{name}' found; checked for every launch "
            f"CUDA allows in the dimensions it reads ({shown}, * = any); set it with --blockDim/--gridDim, a //--{words[0]} header "
            "or [tool.autosync]")
    return [choice]


def _launches_elsewhere(opts: KernelOptions, kernel: Kernel) -> list[Any]:
    """The launches of ``kernel`` in the compilation database's other files (a kernel defined in
    ``k.cu`` and launched from ``main.cu``): the files whose text names the kernel before a
    ``<<<``, each read with its own flags, at most :data:`compdb.MAX_LAUNCH_FILES` of them.  A
    file clang cannot read adds nothing (the launch then stays symbolic: sound)."""
    import re

    from autosync.pipeline import compdb
    from autosync.pipeline.files import read_source
    from kpl import frontend

    try:
        database = compdb.find_database(opts.file, opts.build_dir)
    except Exception:  # noqa: BLE001 - a bad -p was reported when the flags were read
        return []
    if database is None or "<" in kernel.name:
        return []
    call = re.compile(r"\b" + re.escape(kernel.name) + r"\s*<<<")
    found: list[Any] = []
    files = [f for f in compdb.launching_files(database, opts.file) if call.search(read_source(f))]
    for path in files[:compdb.MAX_LAUNCH_FILES]:
        flags = compdb.flags_for(path, opts.build_dir)
        try:
            found += frontend.launches_elsewhere(
                os.path.relpath(path), kernel, defines=dict(flags.defines) if flags else None,
                include_dirs=list(flags.include_dirs) if flags else None, clang=opts.clang)
        except KplError:
            continue
    return found


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
