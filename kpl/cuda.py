"""The text-level front end: ``.cu`` text -> pycparser AST plus side tables.

``parse_cuda`` turns a ``.cu`` file's text into a pycparser ``FileAST`` plus side tables
(kernels, memory spaces, textures).  The steps:

1. header comments (:mod:`kpl.header`), merged ``-D`` defines;
2. pcpp preprocessing with line-preserving output (:mod:`kpl.preprocess`,
   -> :class:`~kpl.preprocess.Preprocessed`);
3. template expansion (:mod:`kpl.templates`, -> :class:`~kpl.templates.Expanded`): each
   explicit instantiation (or ``-D`` binding) of a function template becomes one C function
   with a mangled name (``reduce__int_256_false``);
4. lowering of the CUDA dialect at token level (:mod:`kpl.lower_cuda`,
   -> :class:`~kpl.lower_cuda.Lowered`): qualifiers blanked, named barriers ([WEFT]) as
   ``__kpl_bar_sync``/``__kpl_bar_arrive`` calls, C++ casts as C casts, ...;
5. pycparser over ``stub + lowered text`` (this module); ``#line`` directives make its
   coordinates the original file/line.

Each stage is one module with a dataclass output; the tokenizer they share is
:mod:`kpl.tokens` and the ``#line`` maps are in :mod:`kpl.spans`.  The result is a
:class:`~kpl.source.ParsedSource`.
"""

from __future__ import annotations

import os
import re
from functools import lru_cache
from typing import NoReturn

from pycparser import c_parser
from pycparser.c_parser import Coord, ParseError

from kpl.errors import KplError
from kpl.header import parse_header
from kpl.lineindex import LineIndex
from kpl.lower_cuda import CudaLowerer
from kpl.preprocess import preprocess
from kpl.source import FunctionInfo, ParsedSource
from kpl.spans import directive
from kpl.templates import TemplateExpander, template_param_names
from kpl.textio import read_source

__all__ = ["FunctionInfo", "ParsedSource", "parse_cuda", "STUB_FILE", "STUB_PATH"]

STUB_PATH = os.path.join(os.path.dirname(__file__), "stubs", "cuda.h")
#: ``coord.file`` of every AST node that comes from the bundled stub (skip these).
STUB_FILE = "<kpl-stub>/cuda.h"


class _Parser(c_parser.CParser):  # type: ignore[misc]
    """pycparser 3.0 reports some errors ("Invalid expression", "At end of input") with the
    file name only; point them at the next token (or the last one at end of input)."""

    def _parse_error(self, msg: str, coord: object) -> NoReturn:
        if not isinstance(coord, Coord) or coord.line is None:
            tok = None
            try:
                buf = self._tokens._buffer
                idx = self._tokens._index
                tok = buf[idx] if idx < len(buf) and buf[idx] is not None else None
                if tok is None:
                    tok = next((t for t in reversed(buf[:idx]) if t is not None), None)
            except Exception:
                tok = None
            if tok is not None:
                coord = Coord(file=self.clex.filename, line=tok.lineno, column=tok.column)
                msg = f"{msg} at '{tok.value}'"
        raise ParseError(f"{coord}: {msg}")


@lru_cache(maxsize=1)
def _stub_text() -> str:
    with open(STUB_PATH, encoding="utf-8") as fh:
        text = fh.read()
    return re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)


def parse_cuda(path: str, text: str | None = None, *, defines: dict[str, str] | None = None,
               include_dirs: list[str] | None = None, instances: list[str] | None = None,
               forced_includes: list[str] | None = None, forced_dirs: list[str] | None = None) -> ParsedSource:
    """Parse a ``.cu`` file into a pycparser AST plus side tables.

    ``defines`` (``-D``) are merged over the header's own ``-DNAME=VALUE`` flags.  A define
    whose name is a template parameter binds that parameter when the template has no explicit
    instantiation, and is NOT a preprocessor macro (it would clobber ``template<int N>``).
    ``instances`` (``--kernel 'k<32>'``) are instantiations of kernel templates to make, as if
    the file held ``template __global__ void k<32>(...);``.  ``forced_includes`` are read
    first, as ``-include FILE`` (:func:`kpl.preprocess.preprocess`).
    Raises :class:`KplError` for every problem with the input.
    """
    if text is None:
        try:
            text = read_source(path)
        except OSError as exc:
            raise KplError(f"cannot read file: {exc.strerror}", path) from None
    header = parse_header(text, path)
    all_defs = dict(header.defines)
    all_defs.update(defines or {})
    tparams = template_param_names(text)
    pp_defs = {k: v for k, v in all_defs.items() if k not in tparams}
    try:
        pre = preprocess(path, text, pp_defs, include_dirs, forced_includes, forced_dirs)
    except KplError:
        raise
    except Exception as exc:  # pcpp's own failures on malformed input
        raise KplError(f"preprocessor error: {exc}", path) from None
    expanded = TemplateExpander(pre.text, path, all_defs, instances).run()
    low = CudaLowerer(expanded.text, path, expanded.instances).run()
    decls = "".join(f"extern {ty} {name}[];\n" for name, ty in low.dynsmem.items())
    body = low.text
    if not body.lstrip().startswith("#"):
        body = directive(1, path) + "\n" + body
    lowered = directive(1, STUB_FILE) + "\n" + _stub_text() + decls + body
    try:
        tree = _Parser().parse(lowered, filename=path)
    except ParseError as exc:
        raise _unterminated_type(path, text) or _parse_error(str(exc), path, text) from None
    except AssertionError:  # pycparser's scope stack on unbalanced braces (no position known)
        raise KplError("syntax error: unbalanced braces", path) from None
    except (AttributeError, TypeError, IndexError, KeyError):
        # pycparser's declaration builder trips over some malformed declarations instead of
        # raising ParseError (e.g. `struct A {...}` with no `;` before the next declaration)
        raise (_unterminated_type(path, text)
               or KplError("syntax error: malformed declaration", path)) from None
    return ParsedSource(path=path, text=text, header=header, ast=tree, lowered=lowered,
                        functions=low.functions, var_spaces=low.var_spaces, extern_shared=low.extern_shared,
                        textures=low.textures, files=pre.files, structs=low.structs,
                        macros=pre.macros)


def _missing_semicolon(text: str, line: int, col: int | None) -> tuple[int, int] | None:
    """Where gcc/nvcc report a missing ``;``: just after the previous token, when that token
    ends an earlier line that does not end a statement or open/close a block (pycparser
    reports the NEXT token instead)."""
    lines = text.splitlines()
    if col is None or not 1 < line <= len(lines) or lines[line - 1][:col - 1].strip():
        return None
    for prev in range(line - 1, 0, -1):
        code = re.sub(r"//.*$", "", lines[prev - 1]).rstrip()
        if not code.strip():
            continue
        if code.lstrip().startswith("#") or code[-1] in ";{},:":
            return None
        return prev, len(code) + 1
    return None


_UNTERMINATED_TYPE = re.compile(
    r"^[^\S\n]*\}[^;\n]*$\n(?:[^\S\n]*(?://.*)?\n)*[^\S\n]*"
    r"(?:struct|union|class|typedef|template|enum|__global__|__device__|__host__|static|extern)\b",
    re.M)


_TYPE_HEAD = re.compile(r"\b(?:struct|union|class|enum)\b[^;{}()]*$")


def _unterminated_type(path: str, source: str) -> KplError | None:
    """A struct/union/class/enum definition whose closing ``}`` lacks its ``;`` before the next
    declaration, reported where gcc and nvcc report it (just after the ``}``).  pycparser
    reports it elsewhere: at the definition's start (3.12) or by crashing (3.0)."""
    lines = LineIndex(source)
    for m in _UNTERMINATED_TYPE.finditer(source):
        close = source.index("}", m.start())
        depth, i = 0, close
        while i >= 0:  # the matching `{` (a heuristic: braces in strings are not skipped)
            depth += {"}": 1, "{": -1}.get(source[i], 0)
            if depth == 0:
                break
            i -= 1
        if i < 0 or not _TYPE_HEAD.search(source[source.rfind("\n", 0, i) + 1:i]):
            continue  # the `}` of a function body or a block: no `;` needed
        end = source.index("\n", m.start())
        line, col = lines.line_col(len(source[:end].rstrip()))
        return KplError("expected ';' after the type definition", path, line, col)
    return None


def _parse_error(msg: str, path: str, source: str | None = None) -> KplError:
    m = re.match(r"^(.*?):(\d+):(\d+):\s*(.*)$", msg, re.S) or re.match(r"^(.*?):(\d+):\s*(.*)$", msg, re.S)
    if m is None:
        return KplError(f"syntax error: {msg}", path)
    groups = m.groups()
    file, line = groups[0], int(groups[1])
    col = int(groups[2]) if len(groups) == 4 else None
    text = groups[-1].strip()
    if text.startswith("before:"):
        at = _missing_semicolon(source, line, col) if source is not None and file == path else None
        if at is not None:
            return KplError(f"expected ';' before '{text[7:].strip()}'", file, at[0], at[1])
        text = f"syntax error before '{text[7:].strip()}'"
    elif not text.lower().startswith("syntax"):
        text = f"syntax error: {text}"
    if file == STUB_FILE:
        text += " (in the bundled CUDA stub: a name in the kernel clashes with a CUDA builtin?)"
    return KplError(text, file, line, col)
