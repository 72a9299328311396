"""Where a label is in the user's file: ``file:line:col`` for reports, explanations and notes.

A label names a statement of the KPL kernel ([AutoSync] Sec. III-A); the user reads positions
in the file they wrote (or in the header a statement came from).  The synthesis explains an
unfixable constraint at a line, the macro check names the use site, and every report (text,
JSON, SARIF) points at a statement, so the one mapping from labels to positions lives here,
below all of them.  (:class:`kpl.spans.Locator` is the other direction's helper: offsets of
the preprocessed text back to original lines.)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kpl.ast import Kernel, Span
from kpl.labels import LabelTree


@dataclass(frozen=True)
class Location:
    """A 1-based position in a file (``end_*`` 0 when unknown)."""

    file: str
    line: int
    column: int
    end_line: int = 0
    end_column: int = 0

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"

    def as_json(self) -> dict[str, Any]:
        return {"file": self.file, "line": self.line, "column": self.column}


class LabelLocator:
    """Maps the labels of one kernel to source locations, shown with the user's path."""

    def __init__(self, kernel: Kernel, display_path: str | None = None) -> None:
        self.kernel = kernel
        self.tree = LabelTree(kernel)
        self.path = display_path or kernel.source_path

    def _file(self, span: Span) -> str:
        same = span.file in (self.kernel.source_path, self.path, "", "<input>.cu") or not span.file
        return self.path if same else span.file

    def span(self, label: int | None) -> Span | None:
        if label is None or label not in self.tree.nodes:
            return None
        node = self.tree.nodes[label]
        stmt = node.stmt
        if node.kind == "start" and node.parent is not None:
            stmt = self.tree.nodes[node.parent].stmt
        if stmt is not None and stmt.span is not None:
            return stmt.span
        if node.block is not None and node.block.span is not None:
            return node.block.span
        return None

    def location(self, label: int | None) -> Location | None:
        span = self.span(label)
        if span is None or span.line <= 0:
            return None
        return Location(self._file(span), span.line, max(span.col, 1), span.end_line, span.end_col)

    def at_line(self, line: int | None) -> Location | None:
        return Location(self.path, line, 1) if line else None

    def prefix(self, loc: Location | None) -> str:
        return f"{loc}: " if loc is not None else f"{self.path}: "

    def name(self, label: int) -> str:
        return self.tree.name(label) if label in self.tree.nodes else f"#{label}"
