"""A compilation database (``compile_commands.json``, as CMake, Bear and meson write it): the
flags a CUDA project really compiles each file with.

Found like clang-tidy finds it: ``-p BUILD_DIR`` (the folder holding the file, or the file
itself), else the first ``compile_commands.json`` in the file's folder or above it (also in a
``build/`` sub-folder on the way, where CMake puts it).  Of each file's command, AutoSync uses
what changes the kernel it sees:

* ``-D NAME[=VALUE]`` / ``-U NAME`` (``--define-macro``/``--undefine-macro`` for nvcc);
* ``-I DIR``, ``-isystem DIR``, ``-iquote DIR`` (``--include-path`` for nvcc), relative to the
  entry's ``directory``;
* ``-include FILE`` (``--pre-include`` for nvcc): the forced includes, in order, read before
  the file (:mod:`kpl.frontend.clang`; FILE must lie under the kernel's folder, an ``-I`` folder
  or the entry's ``directory``);
* ``-x cuda`` / ``-x cu``: the file is CUDA whatever its suffix (a ``.cpp`` compiled as CUDA is
  then found in a folder, see :func:`cuda_files`).

Command-line ``-D``/``-I`` win over the database; the database wins over nothing else (the
launch configuration has its own order, :mod:`autosync.pipeline.launch`).  The database's other
files are where a kernel without a launch in its own file may be launched from
(:func:`launching_files`).
"""

from __future__ import annotations

import json
import os
import shlex
from dataclasses import dataclass, field

from autosync.pipeline.errors import BadInput

NAME = "compile_commands.json"


@dataclass(frozen=True)
class CompileFlags:
    """What one file's compile command says, with paths made absolute."""

    database: str
    defines: dict[str, str] = field(default_factory=dict)
    include_dirs: tuple[str, ...] = ()
    pre_includes: tuple[str, ...] = ()
    cuda: bool = False  # ``-x cuda``/``-x cu``, or nvcc compiling it
    directory: str = ""  # the entry's ``directory`` (forced includes may lie under it)


def find_database(file: str, build_dir: str | None = None) -> str | None:
    """The database for ``file``: ``-p BUILD_DIR`` (missing: bad input), else upward search."""
    if build_dir is not None:
        path = build_dir if os.path.basename(build_dir) == NAME else os.path.join(build_dir, NAME)
        if not os.path.isfile(path):
            raise BadInput(f"-p {build_dir}: no {NAME} there")
        return os.path.abspath(path)
    folder = os.path.dirname(os.path.abspath(file)) if not os.path.isdir(file) else os.path.abspath(file)
    while True:
        for cand in (os.path.join(folder, NAME), os.path.join(folder, "build", NAME)):
            if os.path.isfile(cand):
                return cand
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


_LOADED: dict[tuple[str, int, int], list[dict[str, object]]] = {}


def _entries(database: str) -> list[dict[str, object]]:
    st = os.stat(database)
    key = (database, st.st_mtime_ns, st.st_size)
    if key not in _LOADED:
        try:
            with open(database, encoding="utf-8") as fh:
                data = json.load(fh)
        except (OSError, ValueError) as exc:
            raise BadInput(f"cannot read {database}: {exc}") from None
        if not isinstance(data, list):
            raise BadInput(f"{database}: expected a JSON array of compile commands")
        _LOADED[key] = [e for e in data if isinstance(e, dict) and "file" in e]
    return _LOADED[key]


def _argv(entry: dict[str, object]) -> list[str]:
    args = entry.get("arguments")
    if isinstance(args, list):
        return [str(a) for a in args]
    return shlex.split(str(entry.get("command", "")))


def _file_of(entry: dict[str, object]) -> str:
    return os.path.normpath(os.path.join(str(entry.get("directory", "")), str(entry["file"])))


#: option -> what it sets, for the joined (``-DX``) and separate (``-D X``) spellings
_VALUE_OPTS = {"-D": "define", "--define-macro": "define", "-U": "undefine", "--undefine-macro": "undefine",
               "-I": "include", "-isystem": "include", "-iquote": "include", "--include-path": "include",
               "-include": "pre", "--pre-include": "pre", "-x": "lang", "--x": "lang"}


def parse_command(argv: list[str], directory: str, database: str) -> CompileFlags:
    """The flags of one compile command (``argv[0]`` is the compiler)."""
    defines: dict[str, str] = {}
    includes: list[str] = []
    pre: list[str] = []
    cuda = bool(argv) and os.path.basename(argv[0]).startswith("nvcc")
    i = 1
    while i < len(argv):
        arg = argv[i]
        opt = value = None
        if arg in _VALUE_OPTS and i + 1 < len(argv):
            opt, value = arg, argv[i + 1]
            i += 1
        elif "=" in arg and arg.split("=", 1)[0] in _VALUE_OPTS and arg.startswith("--"):
            opt, value = arg.split("=", 1)
        else:
            for short in ("-isystem", "-iquote", "-D", "-U", "-I", "-x"):
                if arg.startswith(short) and len(arg) > len(short):
                    opt, value = short, arg[len(short):]
                    break
        i += 1
        if opt is None or value is None:
            continue
        what = _VALUE_OPTS[opt]
        if what == "define":
            name, eq, val = value.partition("=")
            defines[name] = val if eq else "1"
        elif what == "undefine":
            defines.pop(value, None)
        elif what == "include":
            includes.append(os.path.normpath(os.path.join(directory, value)))
        elif what == "pre":
            pre.append(os.path.normpath(os.path.join(directory, value)))
        else:
            cuda = value in ("cuda", "cu")
    return CompileFlags(database, defines, tuple(dict.fromkeys(includes)), tuple(pre), cuda,
                        os.path.abspath(directory) if directory else "")


def flags_for(file: str, build_dir: str | None = None) -> CompileFlags | None:
    """The flags ``file`` is compiled with, or None (no database, or the file is not in it)."""
    database = find_database(file, build_dir)
    if database is None:
        return None
    target = os.path.normpath(os.path.abspath(file))
    for entry in _entries(database):
        if _file_of(entry) == target:
            return parse_command(_argv(entry), str(entry.get("directory", "")), database)
    return None


def cuda_files(folder: str) -> list[str]:
    """Files under ``folder`` that the database compiles as CUDA (``-x cuda`` or nvcc)."""
    database = find_database(folder)
    if database is None:
        return []
    root = os.path.abspath(folder) + os.sep
    out = []
    for entry in _entries(database):
        path = _file_of(entry)
        if path.startswith(root) and os.path.isfile(path) and \
                parse_command(_argv(entry), str(entry.get("directory", "")), database).cuda:
            out.append(path)
    return out


#: how many of the database's other files are read for the launches of one kernel
MAX_LAUNCH_FILES = 8


def launching_files(database: str, file: str) -> list[str]:
    """The database's other files whose text launches some kernel (``<<<``): where a kernel
    defined in ``file`` may be launched from (:mod:`autosync.pipeline.launch`); also part of
    the result cache's key, so an edited launch there is never answered from the cache."""
    target = os.path.normpath(os.path.abspath(file))
    out = []
    for entry in _entries(database):
        path = _file_of(entry)
        if path == target or path in out or not os.path.isfile(path):
            continue
        try:
            with open(path, "rb") as fh:
                if b"<<<" in fh.read():
                    out.append(path)
        except OSError:
            continue
    return out


__all__ = ["NAME", "CompileFlags", "find_database", "parse_command", "flags_for", "cuda_files",
           "launching_files", "MAX_LAUNCH_FILES"]
