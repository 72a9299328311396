"""Where the translation unit's macros are defined (recorded by :mod:`kpl.preprocess`).

A statement that comes from a macro body has no place of its own in the user's text (only the
macro's use does), so ``fix`` cannot put a barrier between two statements of one expansion; it
names the macro's definition instead (``autosync.macro_sites``).  The definition may be in an
included header, which only the preprocessor sees: hence this record, carried on
:attr:`kpl.ast.Kernel.macros`.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class MacroDef:
    """A macro ``#define``\\ d by the kernel's file or a header it includes: its display path and
    1-based line, whether it takes arguments (a function-like macro's bare name is not a use),
    and an object-like macro's body (None: function-like, or defined with two different bodies,
    so which one a given line saw is not known) -- launch constants such as ``k<<<1, TILE>>>``."""

    name: str
    file: str
    line: int
    function_like: bool
    body: str | None = None


__all__ = ["MacroDef"]
