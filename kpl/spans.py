"""Statement extents in the ORIGINAL text: :class:`SourceText`.

clang says where a statement starts (and its last token); rendering a patch that keeps every
other byte of the user's file (CONTRIBUTING.md, "Rendering") needs the exact extent of each
statement, up to its ``;`` or closing brace, and the offsets of block braces.
:class:`SourceText` is the text with offset/line/column conversions
(:class:`kpl.lineindex.LineIndex`) and a small C scanner (comments, strings, preprocessor
lines, brackets, the shape of ``if … else …`` and ``do … while (…);``).
"""

from __future__ import annotations

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

    def declaration_start(self, pos: int) -> int:
        """Where the declaration around ``pos`` starts: back over the type words and
        qualifiers on the same line (clang's range of a declaration whose qualifier is a
        macro, ``__shared__``, may start after it)."""
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
