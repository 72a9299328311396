"""Preprocessing of CUDA sources with pcpp (pure Python, no system ``cpp``).

Why our own driver around pcpp rather than ``pcpp.Preprocessor.write``: the rest of AutoSync
renders fixes back into the user's ORIGINAL text (DESIGN.md, "Labels": a barrier is written
as a new statement next to a labelled one), so every line the preprocessor did not change
must keep its exact columns.  pcpp's writer collapses whitespace and turns comments into one
space; ours keeps whitespace verbatim, turns comments into blanks of the same shape and
emits ``#line`` directives whenever the output stops following the input line by line, so
pycparser's coordinates come out as the original ``file:line``.

Include policy (a verifier must never silently read the system's headers): ``#include
"x.h"`` resolves next to the including file and in ``include_dirs`` only; every ``#include
<...>`` resolves to an empty file, because the bundled stub ``kpl/stubs/cuda.h`` is always
prepended to the lowered text by :mod:`kpl.cuda`.
"""

from __future__ import annotations

import io
import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pcpp import Preprocessor  # type: ignore[import-untyped]

from kpl.errors import KplError
from kpl.header import KernelHeader

if TYPE_CHECKING:
    from pycparser import c_ast


@dataclass
class FunctionInfo:
    """One function of the source (kernel, device function or host function)."""

    name: str
    display_name: str
    base_name: str
    kind: str
    launch_bounds: tuple[int, ...] | None
    has_body: bool
    file: str
    line: int
    col: int


@dataclass
class ParsedSource:
    """A parsed ``.cu`` file: pycparser AST of the lowered text plus the side tables that the
    lowering to C99 had to take out of the text (memory spaces, kernels, textures)."""

    path: str
    text: str
    header: KernelHeader
    ast: c_ast.FileAST
    lowered: str
    functions: dict[str, FunctionInfo] = field(default_factory=dict)
    var_spaces: dict[tuple[str | None, str], str] = field(default_factory=dict)
    extern_shared: set[tuple[str | None, str]] = field(default_factory=set)
    textures: dict[str, tuple[str, int]] = field(default_factory=dict)
    files: dict[str, str] = field(default_factory=dict)
    _lowered_map: dict[tuple[str, int], str] | None = field(default=None, repr=False, compare=False)

    def original_line(self, file: str, line: int) -> str:
        """Line ``line`` (1-based) of the original ``file``, without its newline; '' if absent."""
        text = self.files.get(file)
        if text is None:
            return ""
        lines = text.splitlines()
        return lines[line - 1] if 1 <= line <= len(lines) else ""

    def lowered_line(self, file: str, line: int) -> str:
        """The physical line pycparser saw for original ``(file, line)``; '' if absent.

        When a line was emitted several times (a template definition is blanked where it
        stood and re-emitted per instantiation), the first non-blank copy wins.
        """
        if self._lowered_map is None:
            mapping: dict[tuple[str, int], str] = {}
            phys = self.lowered.split("\n")
            for i, loc in enumerate(line_map(self.lowered)):
                if loc is not None and (loc not in mapping or (not mapping[loc].strip() and phys[i].strip())):
                    mapping[loc] = phys[i]
            self._lowered_map = mapping
        return self._lowered_map.get((file, line), "")


# --------------------------------------------------------------------------- line maps


def parse_line_directive(line: str) -> tuple[int, str | None] | None:
    """``#line 12 "f.cu"`` or ``# 12 "f.cu"`` -> (12, 'f.cu'); anything else -> None."""
    s = line.strip()
    if not s.startswith("#"):
        return None
    body = s[1:].strip()
    if body.startswith("line"):
        body = body[4:].strip()
    parts = body.split(None, 1)
    if not parts or not parts[0].isdigit():
        return None
    fname: str | None = None
    if len(parts) > 1 and parts[1].startswith('"'):
        end = parts[1].find('"', 1)
        fname = parts[1][1:end] if end > 0 else parts[1][1:]
    return int(parts[0]), fname


def line_map(text: str, default_file: str | None = None) -> list[tuple[str, int] | None]:
    """For each physical line of ``text`` (split on ``\\n``), the original (file, line) it
    stands for after applying ``#line`` directives; None for the directive lines themselves
    and for lines before the first directive when no ``default_file`` is given."""
    out: list[tuple[str, int] | None] = []
    cur_file = default_file
    cur_line = 1
    for phys in text.split("\n"):
        d = parse_line_directive(phys) if phys.lstrip().startswith("#") else None
        if d is not None:
            cur_line = d[0]
            if d[1] is not None:
                cur_file = d[1]
            out.append(None)
            continue
        out.append((cur_file, cur_line) if cur_file is not None else None)
        cur_line += 1
    return out


def directive(line: int, file: str) -> str:
    esc = file.replace("\\", "\\\\").replace('"', '\\"')
    return f'#line {line} "{esc}"'


# --------------------------------------------------------------------------- pcpp driver


@dataclass
class Preprocessed:
    """pcpp's output: C text with ``#line`` directives naming display paths."""

    text: str
    files: dict[str, str]


class _Pcpp(Preprocessor):  # type: ignore[misc]
    """pcpp with AutoSync's include policy and errors turned into :class:`KplError`."""

    def __init__(self, main_abs: str, main_display: str, include_dirs: list[str]) -> None:
        super().__init__()
        self.rewrite_paths: list[tuple[str, str]] = []
        self.main_abs = main_abs
        self.main_dir = os.path.dirname(main_abs)
        self.display: dict[str, str] = {main_abs: main_display}
        self.main_display = main_display
        self.files: dict[str, str] = {}
        self.include_dirs = [os.path.abspath(d) for d in include_dirs]
        for d in self.include_dirs:
            self.add_path(d)
        self.rewrite_paths = []

    def show(self, source: str | None) -> str:
        if source is None:
            return self.main_display
        return self.display.get(source, source)

    def on_error(self, file: str, line: int, msg: str) -> None:
        raise KplError(msg, self.show(file), line)

    def on_comment(self, tok: Any) -> bool:
        return True  # keep: our writer blanks comments preserving their shape

    def on_file_open(self, is_system_include: bool, includepath: str) -> Any:
        if is_system_include:
            return io.StringIO("")  # <...> headers: the bundled stub stands for all of them
        full = os.path.abspath(includepath)
        if not os.path.isfile(full):
            raise OSError(full)
        with open(full, encoding="utf-8", errors="replace") as fh:
            data = fh.read()
        if data.startswith("\ufeff"):
            data = data[1:]
        rel = os.path.relpath(full, self.main_dir)
        disp = os.path.normpath(os.path.join(os.path.dirname(self.main_display), rel))
        self.display[full] = disp
        self.files[disp] = data
        return io.StringIO(data)

    def on_include_not_found(self, is_malformed: bool, is_system_include: bool, curdir: str,
                             includepath: str) -> Any:
        d = getattr(self, "lastdirective", None)
        file = self.show(d.source) if d is not None else self.main_display
        line = d.lineno if d is not None else None
        if is_malformed:
            raise KplError(f"malformed #include: {includepath}", file, line)
        raise KplError(f"include file '{includepath}' not found (searched next to the including file"
                       " and in -I folders)", file, line)

    def on_directive_unknown(self, directive: Any, toks: Any, ifpassthru: bool, precedingtoks: Any) -> Any:
        if directive.value == "error":
            msg = "".join(t.value for t in toks).strip()
            raise KplError(f"#error {msg}", self.show(directive.source), directive.lineno)
        return True  # #pragma (unroll, once, ...), #warning, #line: dropped


def preprocess(path: str, text: str, defines: dict[str, str] | None = None,
               include_dirs: list[str] | None = None) -> Preprocessed:
    """Run pcpp over ``text`` (the contents of ``path``) and write the result line-aligned.

    Lines that come out of the file without macro expansion keep their exact columns:
    whitespace is copied verbatim and comments are replaced by spaces (newlines kept).
    """
    main_abs = os.path.abspath(path)
    pp = _Pcpp(main_abs, path, include_dirs or [])
    pp.files[path] = text
    for name, value in (defines or {}).items():
        pp.define(f"{name} {value}")
    pp.parse(text, main_abs)
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
    return Preprocessed("".join(out), files)


def parse_cuda(path: str, text: str | None = None, *, defines: dict[str, str] | None = None,
               include_dirs: list[str] | None = None) -> ParsedSource:
    """See :func:`kpl.cuda.parse_cuda` (re-exported here)."""
    from kpl.cuda import parse_cuda as _parse

    return _parse(path, text, defines=defines, include_dirs=include_dirs)
