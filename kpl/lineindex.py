"""Character offset ↔ 1-based (line, column) over one text, defined once.

The front end reports statements by offset, diagnostics want ``file:line:col``, the renderer
and SARIF output name lines of the patched text, and the language server converts to LSP
positions: all of them go through :class:`LineIndex`.  Columns are counted in characters
(code points); an LSP client's UTF-16 columns are computed from these by the server.
"""

from __future__ import annotations

import bisect


class LineIndex:
    """The offsets at which the lines of ``text`` start, with conversions both ways."""

    def __init__(self, text: str) -> None:
        self.text = text
        #: offset of the first character of each line (line 1 starts at 0)
        self.starts: list[int] = [0] + [i + 1 for i, ch in enumerate(text) if ch == "\n"]

    @property
    def line_count(self) -> int:
        return len(self.starts)

    def line_index(self, offset: int) -> int:
        """0-based index of the line holding ``offset``."""
        return bisect.bisect_right(self.starts, offset) - 1

    def line_start(self, offset: int) -> int:
        """Offset of the start of ``offset``'s line."""
        return self.starts[self.line_index(offset)]

    def line_col(self, offset: int) -> tuple[int, int]:
        """1-based (line, column) of ``offset``."""
        index = self.line_index(offset)
        return index + 1, offset - self.starts[index] + 1

    def offset(self, line: int, col: int) -> int:
        """Offset of 1-based (line, col); -1 when the line is out of range."""
        if line < 1 or line > len(self.starts):
            return -1
        return self.starts[line - 1] + col - 1

    def line_text(self, line: int) -> str:
        """The text of 1-based ``line`` without its ``\\n`` ("" when out of range)."""
        if line < 1 or line > len(self.starts):
            return ""
        start = self.starts[line - 1]
        end = self.text.find("\n", start)
        return self.text[start:] if end < 0 else self.text[start:end]
