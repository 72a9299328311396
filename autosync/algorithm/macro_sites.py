"""Where the user's text holds macro uses, so ``fix`` never patches inside an expansion.

A barrier goes after a statement by editing the ORIGINAL text at the statement's end.  When
that statement comes from a macro body (``#define SYNC_AND_SWAP(a, b) { __syncthreads(); …}``)
the user's text has no such place: only the macro's use site, whose text stands for the whole
body.  Inserting there puts the barrier after the whole expansion, not after the statement, and
the end-to-end check would then fail.  Instead :func:`macro_conflict` finds such a placement
BEFORE rendering, so ``fix`` says which line it cannot patch and why (exit 1).

The macros are the preprocessor's own table (``Kernel.macros``: every ``#define`` of the kernel
file AND of the headers it includes, with the file and line of the definition); their uses are
found with a small scan of the kernel's text (a hint, not a preprocessor: the end-to-end check
after rendering still stops any patch this misses).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from kpl.ast import Kernel
from kpl.lineindex import LineIndex
from kpl.macros import MacroDef


@dataclass(frozen=True)
class MacroUse:
    """One use of a macro in the text: ``text[start:end]`` (the name, and its arguments for a
    function-like macro), with the macro's ``#define`` (in this file or an included header)."""

    name: str
    start: int
    end: int
    definition: MacroDef

    @property
    def defined_at(self) -> str:
        return f"{self.definition.file}:{self.definition.line}"


def macro_uses(text: str, macros: dict[str, MacroDef]) -> list[MacroUse]:
    """Every use in ``text``, outside preprocessor lines, of one of ``macros`` (the
    preprocessor's table, :attr:`kpl.ast.Kernel.macros`)."""
    if not macros:
        return []
    uses: list[MacroUse] = []
    name_re = re.compile(r"\b(" + "|".join(map(re.escape, sorted(macros))) + r")\b")
    for m in name_re.finditer(text):
        line_start = text.rfind("\n", 0, m.start()) + 1
        if text[line_start:m.start()].lstrip().startswith("#"):
            continue  # the #define itself, or another directive
        definition = macros[m.group(1)]
        end = m.end()
        if definition.function_like:
            k = end
            while k < len(text) and text[k] in " \t\r\n":
                k += 1
            if k >= len(text) or text[k] != "(":
                continue  # a function-like macro's name without arguments is not expanded
            depth, k = 0, k
            while k < len(text):
                if text[k] == "(":
                    depth += 1
                elif text[k] == ")":
                    depth -= 1
                    if depth == 0:
                        break
                k += 1
            end = k + 1
        uses.append(MacroUse(m.group(1), m.start(), end, definition))
    return uses


def macro_site(kernel: Kernel, labels: list[int], file: str) -> tuple[int, int, int, MacroUse] | None:
    """(label, line, col, use) of the first of ``labels`` whose statement lies inside a macro
    expansion of ``kernel``'s own text, at the macro's use (the user's text: the column
    inside the expansion is nowhere in the file); None when all are outside."""
    from kpl.locations import LabelLocator

    text = kernel.source_text
    uses = macro_uses(text, kernel.macros)
    if not uses:
        return None
    index = LineIndex(text)
    loc = LabelLocator(kernel, file)
    for label in labels:
        span = loc.span(label)
        if span is None or span.line <= 0 or (span.file and span.file not in (kernel.source_path, file)):
            continue
        at = span.start if span.start >= 0 else index.offset(span.line, max(span.col, 1))
        for use in uses:
            whole = at == use.start and span.end >= use.end  # the statement IS the macro use
            if use.start <= at < use.end and not whole:
                return (label, *index.line_col(use.start), use)
    return None


def macro_conflict(kernel: Kernel, labels: list[int], file: str) -> str | None:
    """The one-line error when a barrier must go after a statement of ``labels`` that comes
    from a macro's body (None: every insertion point is in the user's own text)."""
    from kpl.labels import LabelTree

    site = macro_site(kernel, labels, file)
    if site is None:
        return None
    label, line, col, use = site
    return (f"{file}:{line}:{col}: error: cannot patch inside the expansion of macro '{use.name}' "
            f"(defined at {use.defined_at}): a barrier is needed after "
            f"{LabelTree(kernel).name(label)}, which comes from the macro's body")


def macro_note(kernel: Kernel, labels: list[int], file: str) -> str | None:
    """For a kernel that cannot be fixed: a note when its races are inside a macro expansion
    (no barrier can be placed between the statements of a macro body)."""
    site = macro_site(kernel, labels, file)
    if site is None:
        return None
    _, line, col, use = site
    return (f"{file}:{line}:{col}: the race is inside the expansion of macro '{use.name}' (defined at "
            f"{use.defined_at}), where no barrier can be inserted")


__all__ = ["MacroUse", "macro_uses", "macro_site", "macro_conflict", "macro_note"]
