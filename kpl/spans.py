"""Source locations: the front end's one module for offsets, lines and columns.

Three parts, each used by one side of the pipeline:

* :class:`SourceText` -- the ORIGINAL text with offset/line/column conversions and a small C
  scanner (comments, strings, preprocessor lines, brackets, the shape of ``if … else …`` and
  ``do … while (…);``).  pycparser reports only where a node starts; rendering a patch that
  keeps every other byte of the user's file (CONTRIBUTING.md, "Rendering") needs the exact extent
  of each statement and the offsets of block braces.
* ``#line`` maps (:func:`line_map`, :func:`directive`, :class:`Locator`) -- the text-level
  stages (:mod:`kpl.preprocess`, :mod:`kpl.templates`, :mod:`kpl.lower_cuda`) emit text with
  ``#line`` directives; these map offsets of it back to original (file, line, col).
* :class:`NodeSpans` -- the :class:`kpl.ast.Span` of a pycparser node (used by :mod:`kpl.fe`).

Why one module of this size: the three parts are one idea -- a position in the user's text --
and share :class:`SourceText`'s bracket memo and the one :class:`kpl.lineindex.LineIndex`;
split, each would re-scan the text and could disagree about where a statement starts.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from pycparser import c_ast

from kpl import ast as K
from kpl.lineindex import LineIndex

_OPEN = "([{"
_CLOSE = ")]}"


def _is_ident(ch: str) -> bool:
    return ch.isalnum() or ch == "_"


class SourceText(LineIndex):
    """An original source file with offset/line/column conversions (:class:`LineIndex`) and
    a statement scanner."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        #: opening bracket offset -> offset just past its closer, for every bracket a scan
        #: has crossed: nested statements are scanned again from each level (``if`` nested
        #: 1,000 deep), and a known bracket is jumped over instead of re-read
        self._matches: dict[int, int] = {}

    # ------------------------------------------------------------------ lexing

    def skip_ws(self, pos: int) -> int:
        """Skip whitespace, comments and preprocessor lines (``#pragma unroll``)."""
        text, n = self.text, len(self.text)
        while pos < n:
            ch = text[pos]
            if ch in " \t\r\n\f\v":
                pos += 1
            elif text.startswith("//", pos):
                end = text.find("\n", pos)
                pos = n if end < 0 else end + 1
            elif text.startswith("/*", pos):
                end = text.find("*/", pos + 2)
                pos = n if end < 0 else end + 2
            elif ch == "#" and text[self.line_start(pos):pos].strip() == "":
                while True:  # a directive, with backslash continuations
                    end = text.find("\n", pos)
                    if end < 0:
                        return n
                    if text[end - 1] != "\\":
                        pos = end + 1
                        break
                    pos = end + 1
            else:
                break
        return pos

    def word_at(self, pos: int) -> str:
        end = pos
        while end < len(self.text) and _is_ident(self.text[end]):
            end += 1
        return self.text[pos:end]

    def _skip_literal(self, pos: int) -> int:
        quote = self.text[pos]
        pos += 1
        while pos < len(self.text) and self.text[pos] != quote:
            pos += 2 if self.text[pos] == "\\" else 1
        return pos + 1

    def scan_to(self, pos: int, stops: str) -> int:
        """Offset of the first character in ``stops`` at bracket depth 0, from ``pos``."""
        depth = 0
        text, n = self.text, len(self.text)
        while pos < n:
            pos = self.skip_ws(pos)
            if pos >= n:
                break
            ch = text[pos]
            if depth == 0 and ch in stops:
                return pos
            if ch in "\"'":
                pos = self._skip_literal(pos)
                continue
            if ch in _OPEN:
                if pos in self._matches:  # balanced: no stop at depth 0 inside it
                    pos = self._matches[pos]
                    continue
                depth += 1
            elif ch in _CLOSE:
                depth -= 1
                if depth < 0:
                    return pos
            pos += 1
        return -1

    def match_bracket(self, pos: int) -> int:
        """``pos`` at an opening bracket: offset just past its matching closer (-1 if none).
        Every bracket crossed on the way is remembered (``_matches``)."""
        if pos in self._matches:
            return self._matches[pos]
        opened: list[int] = []
        text, n = self.text, len(self.text)
        while pos < n:
            pos = self.skip_ws(pos)
            if pos >= n:
                break
            ch = text[pos]
            if ch in "\"'":
                pos = self._skip_literal(pos)
                continue
            if ch in _OPEN:
                if opened and pos in self._matches:
                    pos = self._matches[pos]
                    continue
                opened.append(pos)
            elif ch in _CLOSE:
                if not opened:
                    return -1  # not called at an opening bracket
                self._matches[opened.pop()] = pos + 1
                if not opened:
                    return pos + 1
            pos += 1
        return -1

    # ------------------------------------------------------------------ statements

    def statement_end(self, pos: int) -> int:
        """Offset just past the C statement that starts at ``pos`` (-1 if it cannot tell)."""
        pos = self.skip_ws(pos)
        if pos >= len(self.text):
            return -1
        if self.text[pos] == "{":
            return self.match_bracket(pos)
        word = self.word_at(pos)
        if word in ("if", "while", "for", "switch"):
            paren = self.skip_ws(pos + len(word))
            if paren >= len(self.text) or self.text[paren] != "(":
                return -1
            after = self.match_bracket(paren)
            if after < 0:
                return -1
            end = self.statement_end(after)
            if word == "if" and end >= 0:
                nxt = self.skip_ws(end)
                if self.word_at(nxt) == "else":
                    end = self.statement_end(nxt + 4)
            return end
        if word == "do":
            end = self.statement_end(pos + 2)
            if end < 0:
                return -1
            nxt = self.skip_ws(end)
            if self.word_at(nxt) != "while":
                return -1
            semi = self.scan_to(nxt, ";")
            return -1 if semi < 0 else semi + 1
        semi = self.scan_to(pos, ";")
        return -1 if semi < 0 else semi + 1

    def expression_start(self, pos: int) -> int:
        """pycparser places an expression statement at its leftmost NODE: past the opening
        parentheses and prefix operators before it (``(s)[t] = 1;``, ``*(p + t) = 1;``,
        ``((float4 *)s)[t] = v;``, whose cast node sits at the inner parenthesis).  Walk back
        over those on the same line, so the span covers the whole statement and a barrier
        before it lands outside it."""
        line, _ = self.line_col(pos)
        line_start = self.starts[line - 1]
        text = self.text
        start = pos
        i = pos - 1
        while i >= line_start and text[i] in " \t(*&-+!~":
            if text[i] == "(":
                j = i - 1
                while j >= line_start and text[j] in " \t":
                    j -= 1
                if j >= line_start and (_is_ident(text[j]) or text[j] in ")]"):
                    break  # a call's or a header's parenthesis (``for (*p = 0; ...``)
            if text[i] not in " \t":
                start = i
            i -= 1
        if start == pos or self._statement_boundary_before(start, line_start):
            return start
        return pos  # an operand inside a larger expression (``B + rotl(...)``): not a statement

    def _statement_boundary_before(self, pos: int, line_start: int) -> bool:
        """Whether a statement can begin at ``pos``: only blanks before it on its line, or
        ``;`` ``{`` ``}`` ``:``, ``else``/``do``, or the ``)`` closing an ``if``/``for``/
        ``while``/``switch`` header."""
        text = self.text
        i = pos - 1
        while i >= line_start and text[i] in " \t":
            i -= 1
        if i < line_start or text[i] in ";{}:":
            return True
        if _is_ident(text[i]):
            j = i
            while j >= line_start and _is_ident(text[j]):
                j -= 1
            return text[j + 1:i + 1] in ("else", "do")
        if text[i] != ")":
            return False
        depth, j = 0, i
        while j >= 0:
            if text[j] == ")":
                depth += 1
            elif text[j] == "(":
                depth -= 1
                if depth == 0:
                    break
            j -= 1
        k = j - 1
        while k >= 0 and text[k] in " \t\n":
            k -= 1
        end = k
        while k >= 0 and _is_ident(text[k]):
            k -= 1
        return j >= 0 and text[k + 1:end + 1] in ("if", "for", "while", "switch")

    def declaration_start(self, pos: int) -> int:
        """pycparser places a declaration at its declarator name; walk back over the type
        words on the same line to where the declaration really starts."""
        line, _ = self.line_col(pos)
        line_start = self.starts[line - 1]
        start = pos
        i = pos - 1
        while i >= line_start:
            ch = self.text[i]
            if ch in ";{}()":
                break
            if not (_is_ident(ch) or ch in " \t*<>,:&"):
                break
            if _is_ident(ch) or ch in "*<>&:":
                start = i
            i -= 1
        return start


# --------------------------------------------------------------------------- #line maps
# The text-level stages (preprocess, templates, CUDA lowering) produce text interleaved with
# ``#line`` directives; these map offsets of such text back to original (file, line, col).


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


class Locator:
    """Maps offsets of a text with ``#line`` directives to original (file, line, col)."""

    def __init__(self, text: str, default_file: str) -> None:
        self.index = LineIndex(text)
        self.map = line_map(text, default_file)
        self.default_file = default_file

    def __call__(self, pos: int) -> tuple[str, int, int]:
        line, col = self.index.line_col(pos)
        loc = self.map[line - 1] if line - 1 < len(self.map) else None
        if loc is None:
            return self.default_file, line, col
        return loc[0], loc[1], col

    def line_start(self, pos: int) -> int:
        return self.index.line_start(pos)


def _token_at(text: str, pos: int) -> str:
    if pos >= len(text):
        return ""
    if text[pos].isalnum() or text[pos] == "_":
        end = pos
        while end < len(text) and (text[end].isalnum() or text[end] == "_"):
            end += 1
        return text[pos:end]
    return text[pos]


def _token_positions(text: str, token: str) -> list[int]:
    """Start offsets of ``token`` in ``text`` as a whole token (identifiers not inside
    longer identifiers), skipping comments."""
    cut = text.find("//")
    if cut >= 0:
        text = text[:cut]
    out = []
    start = text.find(token)
    word = token[0].isalnum() or token[0] == "_"
    while start >= 0:
        before = text[start - 1] if start > 0 else " "
        after = text[start + len(token)] if start + len(token) < len(text) else " "
        if not word or not ((before.isalnum() or before == "_") or (after.isalnum() or after == "_")):
            out.append(start)
        start = text.find(token, start + 1)
    return out


# --------------------------------------------------------------------------- pycparser nodes


#: pycparser nodes that stand as expression statements (their coord is their leftmost node)
_EXPRESSIONS = (c_ast.Assignment, c_ast.UnaryOp, c_ast.BinaryOp, c_ast.Cast, c_ast.ArrayRef,
                c_ast.StructRef, c_ast.FuncCall, c_ast.TernaryOp, c_ast.ExprList, c_ast.ID,
                c_ast.Constant, c_ast.CompoundLiteral)


class NodeSpans:
    """Spans in the ORIGINAL text of pycparser nodes of the lowered text of ``path``.

    pycparser's coordinates are lines of the original file (``#line``) but columns of the
    lowered line; :meth:`span_of` maps the column back and measures the statement with
    :class:`SourceText`.  One instance per lowered kernel (it caches the lowered lines).
    """

    def __init__(self, source: SourceText, path: str, original_line: Callable[[int], str],
                 lowered: str) -> None:
        self.source = source  # the original text of the main file
        self.path = path  # its display path (pycparser's ``coord.file`` for its lines)
        self.original_line = original_line  # 1-based line of the original main file
        self.lowered = lowered  # the text pycparser parsed (stub + lowered source)
        self._lowered: dict[int, str] | None = None  # main-file line -> lowered line

    def span_of(self, node: c_ast.Node, *, decl: bool = False) -> K.Span | None:
        """The statement's extent in the original text, or a line-only span when the text
        there is not the statement verbatim (macro expansion, included file)."""
        coord = getattr(node, "coord", None)
        if coord is None or coord.line is None:
            return None
        file = str(coord.file)
        col = coord.column or 1
        if os.path.abspath(file) != os.path.abspath(self.path) and file != self.path:
            return K.Span(file, coord.line, col)
        col = self._original_column(coord.line, col)
        if col is None:
            return K.Span(file, coord.line, coord.column or 1)
        start = self.source.offset(coord.line, col)
        if decl:
            start = self.source.declaration_start(start)
        elif isinstance(node, _EXPRESSIONS):
            start = self.source.expression_start(start)
        end = self.source.statement_end(start)
        line, col = self.source.line_col(start)
        if end < 0:
            return K.Span(self.path, line, col)
        end_line, end_col = self.source.line_col(end)
        return K.Span(self.path, line, col, end_line, end_col, start, end)

    def _original_column(self, line: int, col: int) -> int | None:
        """Map a column of the lowered line to the original line.  Exact when the text
        before it is unchanged (the usual case: no macro expanded earlier on the line);
        otherwise the token there is matched by its rank among equal tokens on the line
        (the k-th ``{`` in the lowered line is the k-th ``{`` in the original)."""
        original = self.original_line(line)
        lowered = self._lowered_line(line)
        if original[: col - 1] == lowered[: col - 1] and col - 1 <= len(original):
            return col
        token = _token_at(lowered, col - 1)
        if token:
            rank = len(_token_positions(lowered[: col - 1], token))
            found = _token_positions(original, token)
            if rank < len(found):
                return found[rank] + 1
        if lowered[: col - 1].strip() == "" and original.strip():
            return len(original) - len(original.lstrip()) + 1
        return None

    def _lowered_line(self, line: int) -> str:
        """The line pycparser saw for original ``line`` of the main file.  A template's
        definition is blanked where it stood and re-emitted per instantiation under the same
        line numbers, so prefer a non-blank copy."""
        if self._lowered is None:
            table: dict[int, str] = {}
            physical = self.lowered.split("\n")
            for index, loc in enumerate(line_map(self.lowered)):
                if loc is None or loc[0] != self.path:
                    continue
                if loc[1] not in table or (not table[loc[1]].strip() and physical[index].strip()):
                    table[loc[1]] = physical[index]
            self._lowered = table
        return self._lowered.get(line, "")

    def block_source(self, node: c_ast.Node) -> K.BlockSource:
        """Offsets of a compound statement's braces in the original text (none if unbraced)."""
        if not isinstance(node, c_ast.Compound):
            return K.BlockSource()
        span = self.span_of(node)
        if span is None or span.start < 0 or self.source.text[span.start] != "{":
            return K.BlockSource()
        return K.BlockSource(span.start, span.end - 1)
