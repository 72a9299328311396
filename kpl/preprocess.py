"""Preprocessing of CUDA sources with pcpp (pure Python, no system ``cpp``).

Why our own driver around pcpp rather than ``pcpp.Preprocessor.write``: the rest of AutoSync
renders fixes back into the user's ORIGINAL text (CONTRIBUTING.md, "Labels": a barrier is written
as a new statement next to a labelled one), so every line the preprocessor did not change
must keep its exact columns.  pcpp's writer collapses whitespace and turns comments into one
space; ours keeps whitespace verbatim, turns comments into blanks of the same shape and
emits ``#line`` directives whenever the output stops following the input line by line, so
pycparser's coordinates come out as the original ``file:line``.

Include policy (a verifier must never silently read the system's headers): ``#include
"x.h"`` resolves next to the including file and in ``include_dirs`` only; every ``#include
<...>`` resolves to an empty file, because the bundled stub ``kpl/stubs/cuda.h`` is always
prepended to the lowered text by :mod:`kpl.cuda`.

Stage: ``(path, text, defines)`` -> :class:`Preprocessed`.
"""

from __future__ import annotations

import io
import os
from dataclasses import dataclass
from typing import Any

from pcpp import Preprocessor  # type: ignore[import-untyped]

from kpl.errors import KplError
from kpl.spans import directive

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
