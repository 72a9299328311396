"""Where the translation unit's macros are defined (read from the kernel's file and the user
headers clang reads, :func:`scan_macros`).

A statement that comes from a macro body has no place of its own in the user's text (only the
macro's use does), so ``fix`` cannot put a barrier between two statements of one expansion; it
names the macro's definition instead (``autosync.macro_sites``).  The definition may be in an
included header, which only the preprocessor sees: hence this record, carried on
:attr:`kpl.ast.Kernel.macros`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_DEFINE = re.compile(r"^[ \t]*#[ \t]*(define|undef)[ \t]+([A-Za-z_]\w*)(\()?((?:[^\n\\]|\\.)*)", re.M | re.S)


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


def scan_macros(files: list[tuple[str, str]]) -> dict[str, MacroDef]:
    """Every macro ``#define``\\ d in ``files`` ((display path, text), in the order the
    preprocessor reads them), the last definition of each name; an object-like macro defined
    with two different bodies keeps no body.  Conditional compilation is not evaluated: a
    name defined in any branch counts (a macro use is only ever a reason to refuse a patch)."""
    out: dict[str, MacroDef] = {}
    bodies: dict[str, set[str]] = {}
    for path, text in files:
        for m in _DEFINE.finditer(text):
            kind, name, paren, rest = m.groups()
            if kind == "undef":
                continue
            line = text.count("\n", 0, m.start()) + 1
            body = None
            if not paren:
                body = re.sub(r"\\\n", " ", rest)
                body = re.sub(r"/\*.*?\*/|//.*", "", body).strip()
                bodies.setdefault(name, set()).add(body)
                if len(bodies[name]) > 1:
                    body = None
            out[name] = MacroDef(name, path, line, bool(paren), body)
    return out


__all__ = ["MacroDef", "scan_macros"]
