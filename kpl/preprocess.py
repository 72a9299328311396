"""Preprocessing of CUDA sources with pcpp (pure Python, no system ``cpp``).

Why our own driver around pcpp rather than ``pcpp.Preprocessor.write``: the rest of AutoSync
renders fixes back into the user's ORIGINAL text (CONTRIBUTING.md, "Labels": a barrier is written
as a new statement next to a labelled one), so every line the preprocessor did not change
must keep its exact columns.  pcpp's writer collapses whitespace and turns comments into one
space; ours keeps whitespace verbatim, turns comments into blanks of the same shape and
emits ``#line`` directives whenever the output stops following the input line by line, so
pycparser's coordinates come out as the original ``file:line``.

Include policy (a verifier must never read what it should not, nor silently read the
system's headers):

* ``#include "x.h"`` resolves next to the including file, then in ``include_dirs``, then --
  as a C preprocessor falls back from ``""`` to ``<>`` search -- in the bundled stubs
  (:data:`STUB_HEADERS`: ``"cuda.h"``, ``"math_constants.h"``, ``"helper_math.h"``, ...);
* ``#include <x.h>`` never reads a user or system file: it is the bundled stub of that name
  when there is one, else empty, because the stub ``kpl/stubs/cuda.h`` declaring CUDA's
  builtins is prepended to every lowered text by :mod:`kpl.cuda`;
* sandbox: only files under the kernel's folder, the ``include_dirs`` and ``kpl/stubs`` are
  opened.  The real path (symlinks resolved) is checked for containment BEFORE the file is
  opened; ``..`` escapes, absolute paths and symlinks out are ``include outside the allowed
  folders``;
* forced includes (``-include FILE`` of a compile command, ``--include FILE``) are read as if
  ``#include "FILE"`` were the file's first line, under the same sandbox: FILE must lie under
  the kernel's folder, the ``include_dirs`` or the ``forced_dirs`` (the compile command's
  directory);
* an include cycle is one error naming the chain (``a.h -> b.h -> a.h``), never a Python
  ``RecursionError``.  A header may be entered again while it is open (include guards and
  ``#pragma once`` make the second entry empty); a third nested entry is a cycle.

Device code is what is analysed, so ``__CUDA_ARCH__`` (700), ``__CUDACC__`` and
``__NVCC__`` are predefined, and ``__AUTOSYNC__`` (``-D`` overrides them).

The object-like macros left defined are returned too (:attr:`Preprocessed.macros`): the host
code's launch constants (``k<<<1, TILE>>>`` with ``TILE`` from a header) are read from them.

Stage: ``(path, text, defines)`` -> :class:`Preprocessed`.
"""

from __future__ import annotations

import dataclasses
import io
import itertools
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from pcpp import Preprocessor  # type: ignore[import-untyped]

from kpl.errors import KplError
from kpl.macros import MacroDef
from kpl.spans import directive
from kpl.textio import blank_bom, read_source

STUB_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "stubs")
#: display folder of the bundled stub headers in ``#line`` directives and errors
STUB_DISPLAY = "<kpl-stub>"

#: Headers the bundled stubs stand for.  A file name maps to ``kpl/stubs/<name>``; ``""``
#: means everything it declares is in the prelude ``kpl/stubs/cuda.h`` (always prepended),
#: so the include itself is empty.
STUB_HEADERS: dict[str, str] = {
    **dict.fromkeys(
        ["cuda.h", "cuda_runtime.h", "cuda_runtime_api.h", "device_launch_parameters.h",
         "device_functions.h", "vector_types.h", "vector_functions.h", "builtin_types.h",
         "driver_types.h", "sm_20_atomic_functions.h", "sm_32_intrinsics.h", "helper_cuda.h",
         "stdio.h", "cstdio", "inttypes.h", "cinttypes", "stddef.h", "cstddef", "stdbool.h",
         "stdlib.h", "cstdlib", "string.h", "cstring", "assert.h", "cassert"], ""),
    **dict.fromkeys(["stdint.h", "cstdint"], "stdint.h"),
    **dict.fromkeys(["math.h", "cmath"], "math.h"),
    **dict.fromkeys(["limits.h", "climits"], "limits.h"),
    **dict.fromkeys(["float.h", "cfloat"], "float.h"),
    "math_constants.h": "math_constants.h",
    "helper_math.h": "helper_math.h",
}

#: macros every kernel sees: the device-side pass of nvcc, plus ``__AUTOSYNC__`` so that a
#: header can tell the verifier from nvcc (annotations.h: declarations for us, no-ops for
#: nvcc).  ``-D`` may override them.
PREDEFINED: dict[str, str] = {"__CUDA_ARCH__": "700", "__CUDACC__": "1", "__NVCC__": "1",
                              "__AUTOSYNC__": "1"}

_MAX_DEPTH = 64  # nested includes (distinct files) before we call it runaway


def _within(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


@dataclass
class Preprocessed:
    """pcpp's output: C text with ``#line`` directives naming display paths."""

    text: str
    files: dict[str, str]
    #: every macro ``#define``\ d by the kernel file or a header it includes (the last
    #: definition of each name): where a statement that comes from a macro body is defined, and
    #: an object-like macro's body (None when it was defined with two different bodies)
    macros: dict[str, MacroDef] = field(default_factory=dict)


class _Pcpp(Preprocessor):  # type: ignore[misc]
    """pcpp with AutoSync's include policy and errors turned into :class:`KplError`."""

    def __init__(self, main_abs: str, main_display: str, include_dirs: list[str]) -> None:
        self.bodies: dict[str, str | None] = {}  # object-like macro -> body (None: two bodies seen)
        super().__init__()  # defines pcpp's own macros
        self.rewrite_paths: list[tuple[str, str]] = []
        self.main_abs = main_abs  # absolute path of the kernel file (as given, not resolved)
        self.main_dir = os.path.dirname(main_abs)
        self.main_display = main_display  # the kernel's path as the user wrote it
        self.display: dict[str, str] = {main_abs: main_display}  # abs path -> display path
        self.files: dict[str, str] = {}  # display path -> text, of the user's files read
        self.include_dirs = [os.path.abspath(d) for d in include_dirs]
        # real (symlink-free) folders whose files may be opened: the sandbox
        self.roots = [os.path.realpath(d) for d in [self.main_dir, *self.include_dirs, STUB_DIR]]
        self.stack: list[str] = []  # abs paths of the files being read, outermost first
        self.directive_tok: Any = None  # first token of the #include being processed
        self.fell_back: set[str] = set()  # stub folders this #include was already retried in
        self.written = ""  # the quoted file name of that #include, as written
        self.defined: dict[str, MacroDef] = {}  # macros #define'd by a file (not -D, not predefined)
        self.forced_roots: list[str] = []  # extra sandbox folders while reading forced includes
        self.forcing = False  # a forced include (or one it includes) is being read
        self.forced_names: dict[str, str] = {}  # absolute path of a forced include -> as given
        for d in self.include_dirs:
            self.add_path(d)
        self.rewrite_paths = []

    def show(self, source: str | None) -> str:
        if source is None:
            return self.main_display
        return self.display.get(source, source)

    def column_of(self, file: str, line: int, needle: str | None = None) -> int:
        """1-based column of ``needle`` (else of the first non-blank) on ``file``'s ``line``."""
        lines = self.files.get(file, "").split("\n")
        text = lines[line - 1] if 1 <= line <= len(lines) else ""
        at = text.find(needle) if needle else -1
        if at < 0:
            at = len(text) - len(text.lstrip())
        return at + 1

    def fail(self, msg: str, source: str | None, line: int | None, needle: str | None = None) -> KplError:
        file = self.show(source)
        col = self.column_of(file, line, needle) if line else None
        return KplError(msg, file, line, col)

    def define(self, tokens: Any) -> None:
        """pcpp's ``#define``, also recording where a file defined the macro (a ``str`` is one
        of ours: predefined or ``-D``) and the body of every object-like macro (for launch
        constants such as ``k<<<1, TILE>>>``; a name seen with two bodies has none)."""
        super().define(tokens)
        name = (self.tokenize(tokens) if isinstance(tokens, str) else tokens)[0].value
        macro = self.macros.get(name)
        if macro is None:
            return
        if macro.arglist is None:
            body = "".join(t.value for t in macro.value).strip()
            self.bodies[name] = body if self.bodies.get(name, body) == body else None
        source = getattr(macro, "source", None)
        if isinstance(tokens, str) or source is None or os.path.dirname(os.path.abspath(source)) == STUB_DIR:
            return
        self.defined[macro.name] = MacroDef(macro.name, self.show(source), int(macro.lineno),
                                            macro.arglist is not None)

    def forced(self, paths: list[str]) -> Iterator[Any]:
        """The tokens of the forced includes, each read as ``#include "PATH"``."""
        self.forcing = True
        try:
            for path in paths:
                full = os.path.abspath(path)
                self.forced_names[full] = path
                if not os.path.isfile(full):
                    raise KplError(f"forced include not found: {path}", self.main_display)
                yield from self.include(self.tokenize(f'"{full}"'), [])
        finally:
            self.forcing = False

    # ---- pcpp hooks
    def on_error(self, file: str, line: int, msg: str) -> None:
        raise self.fail(msg, file, line)

    def on_comment(self, tok: Any) -> bool:
        return True  # keep: our writer blanks comments preserving their shape

    def parsegen(self, input: str, source: str | None = None, abssource: str | None = None) -> Iterator[Any]:
        """pcpp's per-file generator, with the stack of open files kept for cycle checks."""
        self.stack.append(abssource or self.main_abs)
        try:
            yield from super().parsegen(input, source, abssource)
        finally:
            self.stack.pop()

    def include(self, tokens: Any, original_line: Any) -> Iterator[Any]:
        if not tokens:
            d = getattr(self, "lastdirective", None)
            raise self.fail('#include expects "FILE" or <FILE>', getattr(d, "source", None),
                            getattr(d, "lineno", None))
        self.directive_tok = tokens[0] if tokens else None
        self.written = tokens[0].value[1:-1] if tokens and tokens[0].type == self.t_STRING else ""
        self.fell_back = set()
        yield from super().include(tokens, original_line)

    def _where(self) -> tuple[str | None, int | None]:
        d = self.directive_tok
        if d is None:
            return None, None
        return getattr(d, "source", None), getattr(d, "lineno", None)

    def on_file_open(self, is_system_include: bool, includepath: str) -> Any:
        name = os.path.basename(includepath)
        if is_system_include:  # <...>: the bundled stub of that name, never a real file
            stub = STUB_HEADERS.get(name)
            if stub:
                return self._open(os.path.join(STUB_DIR, stub), stub_name=stub)
            return io.StringIO("")
        full = os.path.abspath(includepath)
        if os.path.dirname(full) == _EMPTY_DIR:
            return io.StringIO("")
        if os.path.dirname(full) == STUB_DIR and os.path.basename(full) in STUB_HEADERS.values():
            return self._open(full, stub_name=os.path.basename(full))
        real = os.path.realpath(full)
        if not any(_within(real, root) for root in self.roots + (self.forced_roots if self.forcing else [])):
            source, line = self._where()
            if self.stack == [] and self.forcing:  # a forced include itself: no line to point at
                name = self.forced_names.get(full, includepath)
                raise KplError(f"include outside the allowed folders: {name} (forced include)",
                               self.main_display)
            raise self.fail(f"include outside the allowed folders: {self.written or includepath}", source, line, '"')
        if not os.path.isfile(real):
            raise OSError(full)
        return self._open(full)

    def _open(self, full: str, stub_name: str | None = None) -> Any:
        source, line = self._where()
        if self.stack.count(full) >= 2 or len(self.stack) > _MAX_DEPTH:
            if full not in self.stack:
                raise self.fail(f"#include nested more than {_MAX_DEPTH} deep", source, line)
            first = self.stack.index(full)
            chain = [os.path.basename(self.show(p)) for p in self.stack[first:]] + [os.path.basename(full)]
            chain = chain[:_cycle_len(chain)]
            raise self.fail("include cycle: " + " -> ".join(chain), source, line)
        if stub_name is not None:
            disp = f"{STUB_DISPLAY}/{stub_name}"
            self.display[full] = disp
            with open(full, encoding="utf-8") as fh:
                return io.StringIO(fh.read())
        data = read_source(full)
        rel = os.path.relpath(full, self.main_dir)
        disp = os.path.normpath(os.path.join(os.path.dirname(self.main_display), rel))
        self.display[full] = disp
        self.files[disp] = data
        return io.StringIO(blank_bom(data))

    def on_include_not_found(self, is_malformed: bool, is_system_include: bool, curdir: str,
                             includepath: str) -> Any:
        source, line = self._where()
        if is_malformed:
            raise self.fail(f"malformed #include: {includepath}", source, line)
        fallback = (STUB_DIR if STUB_HEADERS.get(includepath) else _EMPTY_DIR)
        if not is_system_include and includepath in STUB_HEADERS and fallback not in self.fell_back:
            # "" falls back to <> search: pcpp retries once in the stub folder
            self.fell_back.add(fallback)
            return fallback
        raise self.fail(f"include file '{includepath}' not found (searched next to the including file"
                        " and in -I folders)", source, line, includepath)

    def on_directive_unknown(self, directive: Any, toks: Any, ifpassthru: bool, precedingtoks: Any) -> Any:
        if directive.value == "error":
            msg = "".join(t.value for t in toks).strip()
            raise self.fail(f"#error {msg}", directive.source, directive.lineno)
        return True  # #pragma (unroll, once, ...), #warning, #line: dropped


#: a folder no file lives in: an include of a prelude-covered header retried there is empty
_EMPTY_DIR = os.path.join(STUB_DIR, "<prelude>")


def _cycle_len(chain: list[str]) -> int:
    """Length of the first ``a -> ... -> a`` run of ``chain`` (the whole chain if none)."""
    seen: dict[str, int] = {}
    for i, name in enumerate(chain):
        if name in seen:
            return i + 1
        seen[name] = i
    return len(chain)


def preprocess(path: str, text: str, defines: dict[str, str] | None = None,
               include_dirs: list[str] | None = None, forced_includes: list[str] | None = None,
               forced_dirs: list[str] | None = None) -> Preprocessed:
    """Run pcpp over ``text`` (the contents of ``path``) and write the result line-aligned.

    Lines that come out of the file without macro expansion keep their exact columns:
    whitespace is copied verbatim and comments are replaced by spaces (newlines kept).
    ``forced_includes`` are read before the text (see the module doc; ``forced_dirs`` are
    the folders they may also lie in).
    """
    main_abs = os.path.abspath(path)
    pp = _Pcpp(main_abs, path, include_dirs or [])
    pp.forced_roots = [os.path.realpath(d) for d in forced_dirs or []]
    pp.files[path] = text
    for name, value in {**PREDEFINED, **(defines or {})}.items():
        pp.define(f"{name} {value}")
    try:
        return _write(pp, blank_bom(text), main_abs, forced_includes or [])
    except KplError:
        raise
    except RecursionError:
        d = getattr(pp, "lastdirective", None)
        raise pp.fail("macro or #include nesting too deep", getattr(d, "source", None),
                      getattr(d, "lineno", None)) from None
    except Exception as exc:  # pcpp's own failures on malformed directives
        d = getattr(pp, "lastdirective", None)
        if d is None:
            raise KplError(f"preprocessor error: {exc}", path) from None
        raise pp.fail(f"malformed #{d.value} directive", d.source, d.lineno) from None


def _write(pp: _Pcpp, text: str, main_abs: str, forced: list[str]) -> Preprocessed:
    """Run ``pp`` over ``text`` (after the ``forced`` includes) and write its tokens
    line-aligned (see the module doc)."""
    pp.parse(text, main_abs)
    if forced:
        pp.parser = itertools.chain(pp.forced(forced), pp.parser)
    out: list[str] = []
    cur_src: str | None = None
    cur_line = 0
    at_line_start = True
    t_comments = {"CPP_COMMENT1", "CPP_COMMENT2"}
    while True:
        tok = pp.token()
        if tok is None:
            break
        val: str = tok.value
        if tok.type in t_comments:
            val = "".join(c if c == "\n" else " " for c in val)
        if at_line_start and val != "\n":
            src = pp.show(getattr(tok, "source", None))
            ln = int(getattr(tok, "lineno", cur_line))
            if src != cur_src or ln < cur_line:
                out.append(directive(ln, src) + "\n")
                cur_src, cur_line = src, ln
            elif ln > cur_line:
                out.append("\n" * (ln - cur_line))
                cur_line = ln
            at_line_start = False
        out.append(val)
        nl = val.count("\n")
        if nl:
            cur_line += nl
            at_line_start = val.endswith("\n")
            if not at_line_start:
                pass
    files = dict(pp.files)
    macros = {name: dataclasses.replace(d, body=pp.bodies.get(name) if name in pp.macros else None)
              for name, d in pp.defined.items()}
    return Preprocessed("".join(out), files, macros)
